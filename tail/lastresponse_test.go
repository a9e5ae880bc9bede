package tail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLastResponse(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "claude", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A system line after the reply is no response; the streamed copies'
	// newest line is.
	if at, ok := lastResponse(read("last-response-streamed.jsonl")); !ok || !at.Equal(time.Date(2026, 11, 20, 10, 15, 52, 0, time.UTC)) {
		t.Fatalf("streamed: %v %v", at, ok)
	}
	// Claude Code's own "<synthetic>" reply carries no rate limits: the
	// model's reply before it is the last response.
	if at, ok := lastResponse(read("last-response-synthetic.jsonl")); !ok || !at.Equal(time.Date(2026, 11, 20, 12, 0, 1, 0, time.UTC)) {
		t.Fatalf("synthetic: %v %v", at, ok)
	}
	for _, in := range []string{"", "\n\n", `{"type":"user","timestamp":"2026-11-20T10:00:00Z"}`, `{"type":"assistant","timestamp":"yesterday"}`, "{torn"} {
		if at, ok := lastResponse([]byte(in)); ok {
			t.Errorf("%q: %v", in, at)
		}
	}
}

// TestLastResponseFile reads only the end of a transcript: a first line
// the read began inside is torn and skipped; a missing file is no time.
func TestLastResponseFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	pad := `{"type":"user","message":{"content":"` + strings.Repeat("x", transcriptTail) + `"},"timestamp":"2026-11-20T09:00:00Z"}` + "\n"
	reply := `{"type":"assistant","message":{"model":"claude-sonnet-4-5"},"timestamp":"2026-11-20T09:59:30.250Z"}` + "\n"
	prompt := `{"type":"user","message":{"content":"go on"},"timestamp":"2026-11-20T10:00:00Z"}` + "\n"
	if err := os.WriteFile(path, []byte(pad+reply+prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 20, 9, 59, 30, 250e6, time.UTC)
	if at, ok := LastResponse(path); !ok || !at.Equal(want) {
		t.Fatalf("LastResponse = %v %v, want the reply's %v", at, ok, want)
	}
	if at, ok := LastResponse(filepath.Join(dir, "missing.jsonl")); ok {
		t.Fatalf("no transcript: %v", at)
	}
	if at, ok := LastResponse(""); ok {
		t.Fatalf("no path: %v", at)
	}
}

// FuzzLastResponse: any transcript end gives a time or none, never a panic.
func FuzzLastResponse(f *testing.F) {
	for _, name := range []string{"last-response-streamed.jsonl", "last-response-synthetic.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "claude", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if at, ok := lastResponse(b); ok && at.IsZero() {
			t.Fatalf("a zero time from %q", b)
		}
	})
}

// A reply followed by a tool's long output is past the first read: the
// wider one finds it; past the whole tail, there is none to find.
func TestLastResponseBehindALongToolOutput(t *testing.T) {
	dir := t.TempDir()
	reply := `{"type":"assistant","message":{"model":"claude-sonnet-4-5"},"timestamp":"2026-11-20T09:59:30.250Z"}` + "\n"
	output := func(n int) string {
		return `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.Repeat("y", n) + `"}]},"timestamp":"2026-11-20T10:00:00Z"}` + "\n"
	}
	want := time.Date(2026, 11, 20, 9, 59, 30, 250e6, time.UTC)
	for _, c := range []struct {
		after int
		found bool
	}{{100, true}, {firstTail, true}, {100 << 10, true}, {transcriptTail, false}} {
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, []byte(reply+output(c.after)), 0o644); err != nil {
			t.Fatal(err)
		}
		at, ok := LastResponse(path)
		if ok != c.found || ok && !at.Equal(want) {
			t.Errorf("reply then %d bytes: %v %v, want found=%v", c.after, at, ok, c.found)
		}
	}
}
