package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A line of 32 MB of brackets: gjson's recursive validator would exhaust
// the stack (a fatal error, not a panic); the parsers refuse it first.
func TestDeepLineDoesNotCrash(t *testing.T) {
	n := 16 << 20
	stamp := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)
	claude := []byte(`{"type":"assistant","timestamp":"` + stamp + `","message":{"id":"m","model":"x","usage":{"input_tokens":1},"content":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	if _, ok := parseClaude(claude, "s", "", 0.1, nil); ok {
		t.Error("parseClaude accepted a line nested 16M deep")
	}
	codex := []byte(`{"timestamp":"` + stamp + `","type":"event_msg","payload":{"type":"token_count","info":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	var th codexThread
	if _, ok := parseCodex(codex, &th, 0.1); ok {
		t.Error("parseCodex accepted a line nested 16M deep")
	}
}

// The same line as a file's last line, its stamp after the brackets: the
// follower's other reads of it (stamp, turn end) must not recurse either.
func TestDeepLastLineScan(t *testing.T) {
	tr := newTree(t)
	n := 16 << 20
	tr.write(tr.claudeFile(sid), claudeAssistant(0, "msg_1", 10, "end_turn")+
		`{"type":"assistant","message":{"id":"m","model":"x","stop_reason":"end_turn","usage":{"input_tokens":1},"content":`+
		strings.Repeat("[", n)+strings.Repeat("]", n)+`},"timestamp":"`+stampAt(5)+`"}`+"\n")
	if u := coldRead(t, tr.roots()); len(u.Events) != 1 {
		t.Errorf("%d events, want the one good line's", len(u.Events))
	}
}

// A token_count whose totals are not numbers (or are negative) is not a
// total of zero: the thread's next count must not count everything again.
func TestCodexTotalsOfTheWrongType(t *testing.T) {
	line := func(sec int, total string) []byte {
		return []byte(`{"timestamp":"` + stampAt(sec) + `","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":` + total + `}}}`)
	}
	var th codexThread
	th.id = "t"
	var sum float64
	for i, total := range []string{
		`{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100,"total_tokens":1100}`,
		`{"input_tokens":"1","output_tokens":"2","total_tokens":"3"}`,
		`{"input_tokens":-5,"output_tokens":0,"total_tokens":-5}`,
		`{"input_tokens":2000,"cached_input_tokens":0,"output_tokens":200,"total_tokens":2200}`,
	} {
		out, _ := parseCodex(line(i, total), &th, 0.1)
		if out.event != nil {
			sum += out.event.Weighted
		}
	}
	if sum != 1100 {
		t.Errorf("weighted %v, want 1100: the last total less the first, nothing counted twice", sum)
	}
}

// Responses claiming more tokens than any model answers are damaged lines:
// skipped with one warning however many there are, while a limit hit on
// such a line still gives its sample.
func TestImplausibleTokens(t *testing.T) {
	hit, err := os.ReadFile(filepath.Join("testdata", "claude", "limit-hit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	limitLine := strings.Split(string(hit), "\n")[1]
	damagedHit := strings.Replace(strings.Replace(limitLine, `"<synthetic>"`, `"claude-opus-4-5-20251101"`, 1),
		`"input_tokens":0`, `"input_tokens":200000000`, 1)
	if damagedHit == limitLine || !strings.Contains(damagedHit, "quotaLimits") {
		t.Fatal("testdata/claude/limit-hit.jsonl changed shape")
	}
	tr := newTree(t)
	tr.write(tr.claudeFile(sid), claudeAssistant(0, "msg_1", 10, "end_turn")+
		claudeAssistant(1, "msg_2", 200_000_000, "end_turn")+
		claudeAssistant(2, "msg_3", 300_000_000, "end_turn")+
		damagedHit+"\n")
	u := coldRead(t, tr.roots())
	if len(u.Events) != 1 {
		t.Errorf("%d events, want the one good line's", len(u.Events))
	}
	n := 0
	for _, w := range u.Warnings {
		if strings.Contains(w, "more than 100000000 tokens") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d warnings of damaged lines, want 1: %q", n, u.Warnings)
	}
	if len(u.Samples) != 1 || u.Samples[0].Source != burn.SourceLimitHit {
		t.Errorf("samples %+v, want the damaged line's limit hit", u.Samples)
	}
}

// A rate_limits percent no source reports is skipped and said, not read
// as an exhausted window; the other slot of the line still counts.
func TestCodexDamagedPercent(t *testing.T) {
	for _, pct := range []string{"150", "1e308", "-5"} {
		line := []byte(`{"timestamp":"` + stampAt(0) + `","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":` + pct + `,"window_minutes":300},"secondary":{"used_percent":64.0,"window_minutes":10080}}}}`)
		var th codexThread
		out, ok := parseCodex(line, &th, 0.1)
		if !ok || !out.damaged || len(out.samples) != 1 || out.samples[0].WindowMinutes != 10080 {
			t.Errorf("used_percent %s: ok %v, damaged %v, samples %+v; want the weekly sample alone, damaged", pct, ok, out.damaged, out.samples)
		}
	}
}
