package runway

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// A transcript whose cwd, model and session id hold terminal escape
// sequences, in a file whose name holds one: no surface prints them raw
// (an OSC would retitle the terminal, a CSI recolour or clear it).
func TestEscapesFromFilesAreNotPrinted(t *testing.T) {
	env, dir := hostileTree(t)
	project := filepath.Join(dir, "claude", "projects", "-home-dev-src-evil")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	const esc = `\u001b]0;pwned\u0007\u001b[2J\u009b31m`
	line := claudeLine(380, "msg_ESC", 10)
	line = bytes.Replace(line, []byte(`"cwd":"/home/dev/src/hostile"`), []byte(`"cwd":"/home/dev/src/evil`+esc+`"`), 1)
	line = bytes.Replace(line, []byte(`"sessionId":"`+hostileSession+`"`), []byte(`"sessionId":"e5c`+esc+`"`), 1)
	line = bytes.Replace(line, []byte(`"model":"claude-sonnet-4-5-20250929"`), []byte(`"model":"claude`+esc+`"`), 1)
	damaged := bytes.Replace(claudeLine(381, "msg_ESC_BIG", 10), []byte(`"input_tokens":1,`), []byte(`"input_tokens":900000000000,`), 1)
	name := "evil\x1b]0;pwned\x07\x1b[31m.jsonl"
	if err := os.WriteFile(filepath.Join(project, name), append(line, damaged...), 0o644); err != nil {
		t.Fatal(err)
	}

	ev := env.Evaluate(context.Background(), EvalOptions{At: hostileAt})
	doctor := doctorText(env, func() time.Time { return hostileAt })
	found := false
	for _, s := range ev.Snapshot.Sessions {
		found = found || strings.Contains(s.Project, "evil")
	}
	if !found {
		t.Fatalf("the session with escapes in its cwd was not read: %+v", ev.Snapshot.Sessions)
	}
	if findWarning(ev.Snapshot.Warnings, "evil") == "" {
		t.Fatalf("no warning names the file: %q", ev.Snapshot.Warnings)
	}
	u, st := events(env, hostileAt)
	for what, out := range map[string]string{
		"now":      text.Line(ev.Snapshot, time.UTC),
		"report":   text.Report(ev.Snapshot, time.UTC),
		"doctor":   doctor,
		"warnings": strings.Join(ev.Snapshot.Warnings, "\n"),
		"stats":    strings.Join(st.Warnings, "\n"),
		"events":   eventStrings(u),
	} {
		if i := strings.IndexFunc(out, func(r rune) bool { return r == 0x1b || r == 0x07 || r == 0x9b }); i >= 0 {
			t.Errorf("%s prints a control character: %q", what, out[max(0, i-40):min(len(out), i+40)])
		}
	}
}

func eventStrings(u tail.Usage) string {
	var b strings.Builder
	for _, e := range u.Events {
		b.WriteString(e.Project + " " + e.Model + " " + e.Session + " " + e.Agent + "\n")
	}
	for _, a := range u.Activity {
		b.WriteString(a.Session + "\n")
	}
	return b.String()
}

// A Codex token total of 1e400, or a jump no response could produce,
// between good lines of a rollout: the snapshot is the one without them
// (before, the session took the whole share at 1.66e12 tokens/s), and a
// warning says a line was skipped.
func TestCodexAbsurdTotalLeavesShare(t *testing.T) {
	env, dir := hostileTree(t)
	path := filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T10-00-00-"+hostileThread+".jsonl")
	want := env.Evaluate(context.Background(), EvalOptions{At: hostileAt}).Snapshot
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out []byte
	for i, line := range lines {
		out = append(out, line...)
		if i == 7 { // after the token count at 10:00:50
			out = append(out, `{"timestamp":"2026-11-20T10:00:51.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1e400}},"rate_limits":null}}`+"\n"...)
			out = append(out, `{"timestamp":"2026-11-20T10:00:51.500Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900000000000,"cached_input_tokens":10000,"output_tokens":1201,"total_tokens":900000001201}},"rate_limits":null}}`+"\n"...)
		}
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	got := env.Evaluate(context.Background(), EvalOptions{At: hostileAt}).Snapshot
	if findWarning(got.Warnings, "no response could produce") == "" {
		t.Errorf("no warning about the damaged totals in %q", got.Warnings)
	}
	got.Warnings, want.Warnings = nil, nil
	if diff := snapshotDiff(got, want); len(diff) > 0 {
		t.Errorf("the damaged totals changed the snapshot:\n  %s", strings.Join(diff, "\n  "))
	}
}
