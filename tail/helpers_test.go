package tail

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// Helpers shared by the package's tests: a temp tree of agent folders,
// lines in the agents' formats, cold reads and comparisons.

// tree is a Claude config dir and a Codex home in a temp dir.
type tree struct {
	t      *testing.T
	claude string
	codex  string
}

func newTree(t *testing.T) *tree {
	d := t.TempDir()
	tr := &tree{t: t, claude: filepath.Join(d, "claude"), codex: filepath.Join(d, "codex")}
	tr.mkdir(tr.claude, "projects", "-home-ann-src-my-app")
	tr.mkdir(tr.codex, "sessions", "2026", "12", "01")
	return tr
}

func (tr *tree) roots() Roots { return Roots{Claude: []string{tr.claude}, Codex: []string{tr.codex}} }

func (tr *tree) mkdir(parts ...string) string {
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

func (tr *tree) claudeFile(name string) string {
	return filepath.Join(tr.claude, "projects", "-home-ann-src-my-app", name+".jsonl")
}

func (tr *tree) rollout(day, id string) string {
	return filepath.Join(tr.codex, "sessions", "2026", "12", day, "rollout-2026-12-"+day+"T09-00-00-"+id+".jsonl")
}

func (tr *tree) write(path, data string) {
	tr.t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) append(path, data string) {
	tr.t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		tr.t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		tr.t.Fatal(err)
	}
	f.Close()
}

func stampAt(sec int) string {
	return at("2026-12-01T09:00:00Z").Add(time.Duration(sec) * time.Second).Format("2006-01-02T15:04:05.000Z")
}

func claudeUser(sec int) string {
	return fmt.Sprintf(`{"type":"user","sessionId":"%s","cwd":"%s","message":{"role":"user","content":"go"},"uuid":"u%d","timestamp":"%s"}`+"\n", sid, cwd, sec, stampAt(sec))
}

func claudeAssistant(sec int, id string, out int, stop string) string {
	if stop != "null" {
		stop = `"` + stop + `"`
	}
	return fmt.Sprintf(`{"isSidechain":false,"cwd":"%s","sessionId":"%s","message":{"id":"%s","type":"message","role":"assistant","model":"claude-opus-4-5-20251101","content":[],"stop_reason":%s,"usage":{"input_tokens":4,"cache_creation_input_tokens":%d,"cache_read_input_tokens":5000,"output_tokens":%d}},"requestId":"req_%s","type":"assistant","uuid":"a%d","timestamp":"%s"}`+"\n",
		cwd, sid, id, stop, 100+sec, out, id, sec, stampAt(sec))
}

func codexMeta(sec int, id string) string {
	return fmt.Sprintf(`{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","cwd":"/home/dev/src/demo","source":"cli","base_instructions":"%s"}}`+"\n", stampAt(sec), id, strings.Repeat("b", 3000))
}

func codexCount(sec int, total int64, pct float64) string {
	return fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"total_tokens":%d},"last_token_usage":null},"rate_limits":{"limit_id":"codex","primary":{"used_percent":%.2f,"window_minutes":300,"resets_at":1796107798},"secondary":null}}}`+"\n",
		stampAt(sec), total*9/10, total/2, total/10, total, pct)
}

// diffUsage says how got differs from want, briefly.
func diffUsage(got, want Usage) string {
	var b strings.Builder
	index := func(evs []burn.Event) map[string]burn.Event {
		m := map[string]burn.Event{}
		for _, e := range evs {
			m[e.Key] = e
		}
		return m
	}
	g, w := index(got.Events), index(want.Events)
	for k, e := range w {
		if ge, ok := g[k]; !ok {
			fmt.Fprintf(&b, "missing %+v\n", e)
		} else if ge != e {
			fmt.Fprintf(&b, "differs %+v\n   want %+v\n", ge, e)
		}
	}
	for k, e := range g {
		if _, ok := w[k]; !ok {
			fmt.Fprintf(&b, "extra %+v\n", e)
		}
	}
	if !reflect.DeepEqual(got.Samples, want.Samples) {
		fmt.Fprintf(&b, "samples: got %d, want %d\n", len(got.Samples), len(want.Samples))
	}
	if !reflect.DeepEqual(got.Activity, want.Activity) {
		fmt.Fprintf(&b, "activity: got %+v\n          want %+v\n", got.Activity, want.Activity)
	}
	if !reflect.DeepEqual(got.Warnings, want.Warnings) {
		fmt.Fprintf(&b, "warnings: got %q, want %q\n", got.Warnings, want.Warnings)
	}
	return b.String()
}

const (
	sid = "3f6c2d1e-1111-4222-8333-944455556666"
	cwd = "/home/ann/src/my.app"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
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

// coldRead reads a root unbounded, as `runway now` would with no lookback.
func coldRead(t testing.TB, roots Roots) Usage {
	t.Helper()
	tl := New(Options{Roots: roots, CacheReadWeight: burn.DefaultCacheReadWeight})
	if err := tl.Scan(time.Now()); err != nil {
		t.Fatal(err)
	}
	return tl.Usage(time.Time{})
}

// readClaude copies Claude fixtures into a fresh config dir as transcripts
// of one project and reads them.
func readClaude(t testing.TB, names ...string) Usage {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		copyFile(t, filepath.Join("testdata", "claude", n), filepath.Join(dir, "projects", "-home-ann-src-my-app", strings.ReplaceAll(n, "/", "_")))
	}
	return coldRead(t, Roots{Claude: []string{dir}})
}

// readCodex copies rollouts into a fresh Codex home and reads them.
func readCodex(t testing.TB, names ...string) Usage {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		base := strings.TrimSuffix(filepath.Base(n), ".jsonl")
		copyFile(t, filepath.Join("testdata", "codex", n), filepath.Join(dir, "sessions", "2026", "12", "01", "rollout-2026-12-01T03-49-59-"+base+".jsonl"))
	}
	return coldRead(t, Roots{Codex: []string{dir}})
}

func claudeEvent(key, session, agent, model, atS, startS string, tok burn.Tokens, final bool) burn.Event {
	return burn.Event{Provider: burn.Claude, Session: session, Agent: agent, Project: cwd, Model: model,
		At: at(atS), TurnStart: at(startS), Key: key, Tokens: tok, Weighted: tok.Weighted(0.1), Final: final}
}

func codexEvent(key, session, agent, model, atS, startS string, tok burn.Tokens) burn.Event {
	return burn.Event{Provider: burn.Codex, Session: session, Agent: agent, Project: "/home/dev/src/demo", Model: model,
		At: at(atS), TurnStart: at(startS), Key: key, Tokens: tok, Weighted: tok.Weighted(0.1), Final: true}
}

// endsTurn is e as the response that ended its turn.
func endsTurn(e burn.Event) burn.Event {
	e.EndsTurn = true
	return e
}

func sample(p burn.Provider, src burn.Source, obs string, class burn.WindowClass, minutes int, pct float64, resets time.Time) burn.Sample {
	return burn.Sample{ObservedAt: at(obs), Provider: p, Window: class, WindowMinutes: minutes, UsedPercent: pct, ResetsAt: resets, Source: src}
}

func codexSample(obs string, class burn.WindowClass, minutes int, pct float64, resets time.Time) burn.Sample {
	return sample(burn.Codex, burn.SourceCodexLog, obs, class, minutes, pct, resets)
}

func checkEvents(t *testing.T, got, want []burn.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d events, want %d", len(got), len(want))
		for _, e := range got {
			t.Logf("  got %+v", e)
		}
		return
	}
	for i := range want {
		if !got[i].At.Equal(want[i].At) || !got[i].TurnStart.Equal(want[i].TurnStart) {
			t.Errorf("event %d: at %v start %v, want at %v start %v", i, got[i].At, got[i].TurnStart, want[i].At, want[i].TurnStart)
		}
		g, w := got[i], want[i]
		g.At, g.TurnStart, w.At, w.TurnStart = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if g != w {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func checkSamples(t *testing.T, got, want []burn.Sample) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d samples, want %d: %+v", len(got), len(want), got)
		return
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.ObservedAt.Equal(w.ObservedAt) || !g.ResetsAt.Equal(w.ResetsAt) {
			t.Errorf("sample %d: observed %v resets %v, want %v %v", i, g.ObservedAt, g.ResetsAt, w.ObservedAt, w.ResetsAt)
		}
		g.ObservedAt, g.ResetsAt, w.ObservedAt, w.ResetsAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if g != w {
			t.Errorf("sample %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func checkActivity(t *testing.T, got []burn.Activity, want ...burn.Activity) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got activity %+v, want %+v", got, want)
		return
	}
	for i := range want {
		if got[i].Provider != want[i].Provider || got[i].Session != want[i].Session || !got[i].At.Equal(want[i].At) || got[i].TurnEnded != want[i].TurnEnded {
			t.Errorf("activity %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func hasWarning(ws []string, part string) bool {
	for _, w := range ws {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
