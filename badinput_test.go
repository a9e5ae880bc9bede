package runway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/longproof"
	"github.com/agentrunway/runway/tail"
)

// Bad input: the corpus in testdata/hostile (hostile lines between good
// ones, in a Claude transcript, a Codex rollout and runway's sample log)
// and files made here (lines of 50 and 70 MB, deep nesting, symlink loops,
// FIFOs and devices where files should be). Nothing may panic or hang, no
// figure may be negative or NaN, and the good lines must count exactly.

// hostileAt is after every line of the corpus.
var hostileAt = time.Date(2026, 11, 20, 10, 7, 0, 0, time.UTC)

// The corpus's good lines: 18 Claude responses (streamed in two lines
// each) and 14 Codex token counts, with these weighted totals.
const (
	goodClaude         = 18
	goodClaudeWeighted = 64863.0
	goodCodex          = 14
	goodCodexWeighted  = 66591.0
	goodSamples        = 10
)

const (
	hostileSession = "b0b0b0b0-1111-4222-8333-444455556666"
	hostileThread  = "c0dec0de-1111-4222-8333-444455556666"
)

// hostileTree copies the corpus into a Claude dir, a Codex home and a
// state folder.
func hostileTree(t testing.TB) (Env, string) {
	t.Helper()
	dir := t.TempDir()
	copyTo := func(from, to string) {
		b, err := os.ReadFile(filepath.Join("testdata", "hostile", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyTo("claude.jsonl", filepath.Join(dir, "claude", "projects", "-home-dev-src-hostile", hostileSession+".jsonl"))
	copyTo("codex.jsonl", filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-"+hostileThread+".jsonl"))
	copyTo("samples.jsonl", filepath.Join(dir, "state", "samples.jsonl"))
	return offlineEnv(dir), dir
}

// bounded runs f and fails when it has not returned in time: a hang is
// a failure with a name, not a stuck test binary.
func bounded(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s: no answer in a minute (hung?)\n%s", what, buf)
	}
}

// events reads the tree cold as of at, the way Evaluate does.
func events(env Env, at time.Time) (tail.Usage, tail.Stats) {
	tr := tail.New(tail.Options{Roots: env.Roots, CacheReadWeight: env.Config.CacheReadWeight,
		Lookback: time.Duration(env.Config.Lookback), Until: at})
	tr.Scan(at)
	return tr.Usage(at.Add(-time.Duration(env.Config.Lookback))), tr.Stats()
}

// saneSnapshot fails on a figure a surface must never show.
func saneSnapshot(t *testing.T, s burn.Snapshot) {
	t.Helper()
	if _, err := json.Marshal(s); err != nil {
		t.Fatalf("snapshot does not encode (NaN or infinity?): %v", err)
	}
	// The model's own values, before the JSON form rounds them (a huge
	// value rounds to an infinity, then to 0).
	for _, p := range s.Providers {
		for _, w := range []*burn.WindowStatus{p.Window, p.Weekly} {
			if w != nil && (w.UsedPercent < 0 || w.UsedPercent > 100 || w.Burn.PercentPerS > 100) {
				t.Errorf("snapshot %s %s: %v%% used, burning %v%%/s", p.Provider, w.Class, w.UsedPercent, w.Burn.PercentPerS)
			}
		}
	}
	for k, v := range flatten(s) {
		f, ok := v.(float64)
		if !ok {
			continue
		}
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			t.Errorf("snapshot %s = %v", k, f)
		}
		if strings.HasSuffix(k, "used_percent") && f > 100 {
			t.Errorf("snapshot %s = %v%%", k, f)
		}
	}
}

// goodCounts checks the corpus's good events are all there, exactly, and
// that every other event is a finite, non-negative figure.
func goodCounts(t *testing.T, u tail.Usage) {
	t.Helper()
	var claude, codex int
	var claudeW, codexW float64
	for _, ev := range u.Events {
		if ev.Weighted < 0 || math.IsNaN(ev.Weighted) || math.IsInf(ev.Weighted, 0) ||
			ev.Tokens.Input < 0 || ev.Tokens.Output < 0 || ev.Tokens.CacheCreation < 0 || ev.Tokens.CacheRead < 0 {
			t.Errorf("event %s: tokens %+v weighted %v", ev.Key, ev.Tokens, ev.Weighted)
		}
		switch {
		case strings.HasPrefix(ev.Key, "msg_GOOD_"):
			claude++
			claudeW += ev.Weighted
			if !ev.Final {
				t.Errorf("event %s: the streamed placeholder was kept", ev.Key)
			}
		case ev.Provider == burn.Codex && ev.Session == hostileThread:
			codex++
			codexW += ev.Weighted
		}
	}
	if claude != goodClaude || math.Abs(claudeW-goodClaudeWeighted) > 1e-6 {
		t.Errorf("Claude: %d good events weighing %v, want %d weighing %v", claude, claudeW, goodClaude, goodClaudeWeighted)
	}
	if codex != goodCodex || math.Abs(codexW-goodCodexWeighted) > 1e-6 {
		t.Errorf("Codex: %d events weighing %v, want %d weighing %v", codex, codexW, goodCodex, goodCodexWeighted)
	}
}

func TestHostileCorpus(t *testing.T) {
	env, _ := hostileTree(t)
	var u tail.Usage
	var ev Evaluation
	bounded(t, "reading the corpus", func() {
		u, _ = events(env, hostileAt)
		ev = env.Evaluate(context.Background(), EvalOptions{At: hostileAt})
	})
	goodCounts(t, u)
	saneSnapshot(t, ev.Snapshot)
	var bad []string
	for _, e := range u.Events {
		if !strings.HasPrefix(e.Key, "msg_GOOD_") && e.Session != hostileThread {
			bad = append(bad, fmt.Sprintf("%q %.1f", e.Key, e.Weighted))
		}
	}
	t.Logf("events from hostile lines (kept, as valid JSON with usage): %s", strings.Join(bad, ", "))

	// The sample log: the good samples are all read, the rest skipped
	// with one warning.
	logged, warnings, _ := env.loggedSamples(hostileAt, true)
	n := 0
	for _, s := range logged {
		if s.Source == burn.SourceStatusline && s.UsedPercent >= 20 && s.UsedPercent <= 29 && s.ObservedAt.Sub(hostileAt.Add(-7*time.Minute))%(40*time.Second) == 0 {
			n++
		}
	}
	if n != goodSamples {
		t.Errorf("sample log: %d good samples read, want %d (all: %+v)", n, goodSamples, logged)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "skipped") {
		t.Errorf("sample log warnings %q, want one saying what was skipped", warnings)
	}
	t.Logf("snapshot warnings: %q", ev.Snapshot.Warnings)

	// Followed live, line by line, the corpus gives the same snapshot.
	t.Run("live", func(t *testing.T) {
		live, dir := hostileTree(t)
		files := []string{
			filepath.Join(dir, "claude", "projects", "-home-dev-src-hostile", hostileSession+".jsonl"),
			filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-"+hostileThread+".jsonl"),
			filepath.Join(dir, "state", "samples.jsonl"),
		}
		content := map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			content[f] = b
			if err := os.Truncate(f, 0); err != nil {
				t.Fatal(err)
			}
		}
		l := startLive(t, live, hostileAt, nil)
		for _, f := range files {
			for rest := content[f]; len(rest) > 0; {
				i := bytes.IndexByte(rest, '\n') + 1
				if i == 0 {
					i = len(rest)
				}
				appendBytes(t, f, rest[:i])
				rest = rest[i:]
			}
		}
		saneSnapshot(t, l.sameAsReplay("the corpus followed line by line"))
	})
}

func appendBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// claudeLine is a good Claude response line of the hostile session with
// extra bytes in its content.
func claudeLine(sec int, id string, content int) []byte {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).Add(time.Duration(sec) * time.Second).Format("2006-01-02T15:04:05.000Z")
	return []byte(`{"type":"assistant","sessionId":"` + hostileSession + `","cwd":"/home/dev/src/hostile","timestamp":"` + at +
		`","message":{"id":"` + id + `","model":"claude-sonnet-4-5-20250929","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"content":[{"type":"text","text":"` +
		strings.Repeat("x", content) + `"}]}}` + "\n")
}

// writeLong appends a response line with content bytes of text, written in
// pieces (never held whole).
func writeLong(t *testing.T, path string, sec int, id string, content int) {
	t.Helper()
	line := claudeLine(sec, id, 0)
	i := bytes.Index(line, []byte(`"text":"`)) + len(`"text":"`)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	piece := bytes.Repeat([]byte("x"), 1<<20)
	f.Write(line[:i])
	for n := content; n > 0; n -= len(piece) {
		f.Write(piece[:min(n, len(piece))])
	}
	if _, err := f.Write(line[i:]); err != nil {
		t.Fatal(err)
	}
}

func TestHostileFiles(t *testing.T) {
	longproof.Skip(t)
	env, dir := hostileTree(t)
	project := filepath.Join(dir, "claude", "projects", "-home-dev-src-hostile")
	projects := filepath.Dir(project)
	day := filepath.Join(dir, "codex", "sessions", "2026", "11", "20")

	// Long lines: a 50 MB response counts; a 70 MB one is over the 64 MiB
	// limit and is skipped with a warning; the lines after each count.
	// (-short: 5 MB, and no line over the limit.)
	long := 50 << 20
	if testing.Short() {
		long = 5 << 20
	}
	bigPath := filepath.Join(project, "big.jsonl")
	writeLong(t, bigPath, 400, "msg_LONG_BIG50", long)
	appendBytes(t, bigPath, claudeLine(401, "msg_LONG_AFTER50", 10))
	if !testing.Short() {
		writeLong(t, bigPath, 402, "msg_HUGE70", 70<<20)
	}
	appendBytes(t, bigPath, claudeLine(403, "msg_LONG_AFTER70", 10))
	// Deep nesting: a million arrays inside a response's content.
	deep := claudeLine(404, "msg_LONG_DEEP", 0)
	deep = bytes.Replace(deep, []byte(`"content":[`), []byte(`"content":[`+strings.Repeat("[", 1<<20)+strings.Repeat("]", 1<<20)+`,`), 1)
	deep = append(deep, claudeLine(405, "msg_LONG_AFTERDEEP", 10)...)
	if err := os.WriteFile(filepath.Join(project, "deep.jsonl"), deep, 0o644); err != nil {
		t.Fatal(err)
	}
	// Loops, dangling links, FIFOs, a device and a folder where files
	// should be.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(projects, filepath.Join(project, "loop")))
	must(os.Symlink(filepath.Join(project, "b.jsonl"), filepath.Join(project, "a.jsonl")))
	must(os.Symlink(filepath.Join(project, "a.jsonl"), filepath.Join(project, "b.jsonl")))
	must(os.Symlink(filepath.Join(project, "nowhere.jsonl"), filepath.Join(project, "dangling.jsonl")))
	must(os.Mkdir(filepath.Join(project, "folder.jsonl"), 0o755))
	if runtime.GOOS != "windows" {
		must(os.Symlink("/dev/zero", filepath.Join(project, "zero.jsonl")))
		must(mkfifo(filepath.Join(project, "fifo.jsonl")))
		must(mkfifo(filepath.Join(day, "rollout-2026-11-20T10-30-00-f1f0f1f0-1111-4222-8333-444455556666.jsonl")))
	}

	var u tail.Usage
	var st tail.Stats
	bounded(t, "reading the hostile files", func() { u, st = events(env, hostileAt.Add(time.Minute)) })
	goodCounts(t, u)
	want := map[string]bool{"msg_LONG_BIG50": false, "msg_LONG_AFTER50": false, "msg_LONG_AFTER70": false, "msg_LONG_AFTERDEEP": false}
	for _, e := range u.Events {
		if _, ok := want[e.Key]; ok {
			want[e.Key] = true
		}
		if e.Key == "msg_HUGE70" {
			t.Errorf("the 70 MB line was counted")
		}
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("%s was not counted", k)
		}
	}
	if findWarning(st.Warnings, "skipped a line longer than") == "" && !testing.Short() {
		t.Errorf("no warning for the 70 MB line in %q", st.Warnings)
	}
	t.Logf("warnings: %q", st.Warnings)
	t.Logf("bytes read: %d MB", st.BytesRead>>20)

	// Followed live: the same.
	l := startLive(t, env, hostileAt.Add(time.Minute), nil)
	saneSnapshot(t, l.sameAsReplay("hostile files"))
	// The clock moves before the append: the engine recomputes on the
	// append, not on the clock, so a recompute that ran between an append
	// and a later move of the clock left the live snapshot at the old
	// instant for good (1 run in 4 on a loaded machine).
	l.clock.Set(hostileAt.Add(2 * time.Minute))
	appendBytes(t, filepath.Join(project, "big.jsonl"), claudeLine(420, "msg_LONG_LATE", 1<<20))
	l.sameAsReplay("a line appended after the long ones")
}

// A rollout's newest rate_limits claim 1e308 % used: the window shows at
// most 100 %, never the claim.
func TestHostileNewestPercent(t *testing.T) {
	env, dir := hostileTree(t)
	path := filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-"+hostileThread+".jsonl")
	appendBytes(t, path, []byte(`{"timestamp":"2026-11-20T10:06:59.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":1e308,"window_minutes":300,"resets_at":1795658400},"secondary":null}}}`+"\n"))
	s := env.Evaluate(context.Background(), EvalOptions{At: hostileAt}).Snapshot
	saneSnapshot(t, s)
}

// A line stamped long ago near a file's end (a clock reset to its epoch)
// must not hide the window's lines before it from a cold read.
func TestHostileOldStampLate(t *testing.T) {
	env, dir := hostileTree(t)
	path := filepath.Join(dir, "claude", "projects", "-home-dev-src-hostile", hostileSession+".jsonl")
	old := bytes.Replace(claudeLine(350, "msg_EPOCH", 10), []byte("2026-11-20T10:05:50.000Z"), []byte("2001-01-01T00:00:00.000Z"), 1)
	appendBytes(t, path, old)
	appendBytes(t, path, claudeLine(355, "msg_GOOD_AFTER_EPOCH", 10))
	u, _ := events(env, hostileAt)
	seen := 0
	for _, e := range u.Events {
		if strings.HasPrefix(e.Key, "msg_GOOD_") {
			seen++
		}
	}
	if seen != goodClaude+1 {
		t.Errorf("a cold read with a line from 2001 near the end counts %d good responses, want %d", seen, goodClaude+1)
	}
	l := startLive(t, env, hostileAt, nil)
	l.sameAsReplay("a line from 2001 near the end")
}

// runway's sample log replaced by a FIFO or a device: runway now and the
// engine must not block on it.
func TestHostileSampleLog(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	for _, c := range []struct {
		name string
		make func(path string) error
	}{
		{"fifo", mkfifo},
		{"device", func(path string) error { return os.Symlink("/dev/zero", path) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := hostileTree(t)
			path := filepath.Join(env.StateDir, "samples.jsonl")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			var ev Evaluation
			bounded(t, "runway now with a "+c.name+" for a sample log", func() {
				ev = env.Evaluate(context.Background(), EvalOptions{At: hostileAt})
			})
			saneSnapshot(t, ev.Snapshot)
			if findWarning(ev.Snapshot.Warnings, "sample log") == "" {
				t.Errorf("no warning about the sample log in %q", ev.Snapshot.Warnings)
			}
			bounded(t, "the engine with a "+c.name+" for a sample log", func() {
				l := startLive(t, env, hostileAt, nil)
				l.waitFor("a sample-log warning", hasWarning("sample log"))
				l.stop()
			})
		})
	}
}

// FuzzSessionLines runs arbitrary transcript and rollout content through
// the whole pipeline (tail, burn, the snapshot's JSON): no panic, no hang,
// no negative, NaN or out-of-range figure. Seeded with the corpus.
func FuzzSessionLines(f *testing.F) {
	claude, err := os.ReadFile(filepath.Join("testdata", "hostile", "claude.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	codex, err := os.ReadFile(filepath.Join("testdata", "hostile", "codex.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	cl, cx := bytes.Split(claude, []byte{'\n'}), bytes.Split(codex, []byte{'\n'})
	for i := 0; i < max(len(cl), len(cx)); i += 3 {
		pick := func(lines [][]byte) []byte {
			return bytes.Join(lines[min(i, len(lines)):min(i+3, len(lines))], []byte{'\n'})
		}
		f.Add(pick(cl), pick(cx))
	}
	// One tree per process, its two session files rewritten for each
	// input: an input costs about a millisecond, not a new folder.
	env, dir := hostileTree(f)
	f.Fuzz(func(t *testing.T, claude, codex []byte) {
		write := func(path string, b []byte) {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(dir, "claude", "projects", "-home-dev-src-hostile", hostileSession+".jsonl"), append(claude, '\n'))
		write(filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-"+hostileThread+".jsonl"), append(codex, '\n'))
		s := env.Evaluate(context.Background(), EvalOptions{At: hostileAt}).Snapshot
		saneSnapshot(t, s)
	})
}
