package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// keyTokens is an event as these tests compare it: which response, how
// many tokens.
type keyTokens struct {
	key string
	tok burn.Tokens
}

func eventTokens(evs []burn.Event) []keyTokens {
	var out []keyTokens
	for _, e := range evs {
		out = append(out, keyTokens{e.Key, e.Tokens})
	}
	return out
}

func sameKeyTokens(t *testing.T, got []burn.Event, want ...keyTokens) {
	t.Helper()
	g := eventTokens(got)
	if len(g) != len(want) {
		t.Fatalf("events %+v, want %+v", g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, g[i], want[i])
		}
	}
}

func percents(ss []burn.Sample, class burn.WindowClass) []float64 {
	var out []float64
	for _, s := range ss {
		if s.Window == class {
			out = append(out, s.UsedPercent)
		}
	}
	return out
}

const tornThread = "01a22fc0-0000-7000-8000-000000000009"

// A rollout line cut short by a writer that died, with Codex's next line
// appended right after it: the next line (a token count at 77 %) is read,
// and so is one that follows a torn response_item, whose head alone would
// say the line is not wanted.
func TestCodexTornLine(t *testing.T) {
	u := readCodex(t, "torn.jsonl")
	sameKeyTokens(t, u.Events,
		keyTokens{tornThread + "@1050", burn.Tokens{Input: 1000, Output: 50}},
		keyTokens{tornThread + "@3150", burn.Tokens{Input: 2000, Output: 100}},
		keyTokens{tornThread + "@4200", burn.Tokens{Input: 1000, Output: 50}},
	)
	if got := percents(u.Samples, burn.FiveHour); len(got) != 3 || got[1] != 77 || got[2] != 78 {
		t.Errorf("5-hour samples %v, want [30 77 78]", got)
	}
}

// A Claude response appended right after a half-written line is counted.
func TestClaudeTornLine(t *testing.T) {
	u := readClaude(t, "torn.jsonl")
	var keys []string
	for _, e := range u.Events {
		keys = append(keys, e.Key)
	}
	if want := "msg_01A/req_msg_01A msg_01C/req_msg_01C msg_01D/req_msg_01D"; strings.Join(keys, " ") != want {
		t.Errorf("events %q, want %s", keys, want)
	}
}

// tornTail finds the line a tear ran into, and nothing in a line that is
// merely damaged.
func TestTornTail(t *testing.T) {
	whole := `{"timestamp":"2026-12-01T05:50:06.000Z","type":"event_msg","payload":{"a":[{"b":1},{"c":"{\"d\":2}"}]}}`
	for _, c := range []struct {
		line, want string
	}{
		{`{"timestamp":"x","payl` + whole, whole},
		{`{"a":{"b":{"c":"un` + whole, whole},
		{`{"a":[{"b":1},{"c":2}],"d":{` + whole, whole},
		{`{"s":"a string with {\"k\":1} inside` + whole, whole},
		{whole[:50] + whole[:70] + whole, whole},
		{`garbage`, ""},
		{`{"a":1}}`, ""},
		{`{"a":1}{"b":`, ""},
		{`{"a":{"b":1},"c":`, ""},
		{`{"a":` + strings.Repeat(`{"a":`, 2000), ""},
	} {
		if got := string(tornTail([]byte(c.line))); got != c.want {
			t.Errorf("tornTail(%.60q…) = %.60q, want %.60q", c.line, got, c.want)
		}
	}
	// A line cut just after an inner object closed ends in that object;
	// it is no line of either format (no stamp of its own).
	cut := []byte(whole[:strings.Index(whole, `}]}`)+3])
	var th codexThread
	if out, ok := parseCodex(cut, &th, 0.1); ok || out.event != nil {
		t.Errorf("parseCodex(%q) read something", cut)
	}
	if _, ok := parseClaude(cut, "s", "", 0.1, nil); ok {
		t.Errorf("parseClaude(%q) read something", cut)
	}
}

// Cumulative totals no thread can reach, or a jump no response could
// produce, are damage: skipped with a warning; the responses around them
// count as they would without them.
func TestCodexAbsurdTotals(t *testing.T) {
	const id = "01a22fc0-0000-7000-8000-000000000010"
	u := readCodex(t, "absurd-total.jsonl")
	per := burn.Tokens{Input: 1000, Output: 50}
	sameKeyTokens(t, u.Events,
		keyTokens{id + "@1050", per},
		keyTokens{id + "@2100", per},
		keyTokens{id + "@3150", per},
	)
	n := 0
	for _, w := range u.Warnings {
		if strings.Contains(w, "no response could produce") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("warnings %q, want one about the damaged totals", u.Warnings)
	}
}

// The same lines through the parser alone, read from the middle of a file
// (no total seen yet): an absurd first total is not a base that swallows
// the next responses, and an absurd last_token_usage is no event.
func TestCodexAbsurdTotalsMidFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex", "absurd-total.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	absurdLast := strings.Replace(lines[2], `"last_token_usage":null`, `"last_token_usage":{"input_tokens":1e400,"output_tokens":5}`, 1)
	var th codexThread
	th.id = "t"
	var sum int64
	damaged := 0
	for _, line := range []string{absurdLast, lines[1], lines[3], lines[4], lines[5]} {
		out, _ := parseCodex([]byte(line), &th, 0.1)
		if out.implausible {
			damaged++
		}
		if out.event != nil {
			sum += out.event.Tokens.Input + out.event.Tokens.Output
		}
	}
	// 1050 is the first good total (a base, nothing before it is known);
	// then 2100 and 3150 add 1050 each.
	if sum != 2100 || damaged != 2 {
		t.Errorf("tokens %d, damaged %d; want 2100 and 2", sum, damaged)
	}
}

// The newest token_count's percent is damaged (150 after a good 12.5): the
// older reading is not where the window stands, so it is unread (the gate
// said 0 from it), also on a warm run from the index. A newer reading in
// another rollout covers it.
func TestCodexDamagedNewestPercent(t *testing.T) {
	u := readCodex(t, "damaged-newest-percent.jsonl")
	if len(u.Unread) != 1 || !strings.Contains(u.Unread[0], "newest codex account reading") {
		t.Fatalf("unread %q, want the damaged newest reading", u.Unread)
	}
	if got := percents(u.Samples, burn.FiveHour); len(got) != 1 || got[0] != 12.5 {
		t.Errorf("5h samples %v, want the good 12.5 only", got)
	}
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "codex", "damaged-newest-percent.jsonl"),
		filepath.Join(dir, "sessions", "2026", "12", "01", "rollout-2026-12-01T03-49-59-damaged.jsonl"))
	opts := Options{Roots: Roots{Codex: []string{dir}}, CacheReadWeight: burn.DefaultCacheReadWeight}
	first := New(opts)
	if err := first.Scan(time.Now()); err != nil {
		t.Fatal(err)
	}
	warm := New(opts)
	if err := warm.RestoreIndex(first.Index()); err != nil {
		t.Fatal(err)
	}
	if err := warm.Scan(time.Now()); err != nil {
		t.Fatal(err)
	}
	if u := warm.Usage(time.Time{}); len(u.Unread) != 1 {
		t.Errorf("warm run: unread %q, want the damaged newest reading", u.Unread)
	}
	if u := readCodex(t, "damaged-newest-percent.jsonl", "real/exec_0.169.0.jsonl"); len(u.Unread) != 0 {
		t.Errorf("with a newer good reading: unread %q", u.Unread)
	}
}
