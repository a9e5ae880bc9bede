package quota

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

func TestParseStatusline(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "statusline", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	st, err := ParseStatusline(read("subscription.json"), t0)
	if err != nil {
		t.Fatal(err)
	}
	if st.SessionID != "3f6c2d1e-1111-4222-8333-944455556666" || st.Cwd != "/home/ann/src/my.app" ||
		st.Model != "claude-sonnet-4-5-20250929" || st.Version != "2.1.328" ||
		st.TranscriptPath == "" || st.Damaged {
		t.Fatalf("fields = %+v", st)
	}
	want := []burn.Sample{
		{ObservedAt: t0, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 37.4, ResetsAt: time.Unix(1763650799, 0).UTC(), Source: burn.SourceStatusline},
		{ObservedAt: t0, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 26.1, ResetsAt: time.Unix(1764057600, 0).UTC(), Source: burn.SourceStatusline},
	}
	if len(st.Samples) != 2 || st.Samples[0] != want[0] || st.Samples[1] != want[1] {
		t.Fatalf("samples = %+v", st.Samples)
	}

	// The context window: its stated percent, else current usage over its
	// size; the subscription fixture (an older build) has neither.
	if st.ContextUsedPercent != 0 || st.ModelName != "Sonnet 4.5" {
		t.Fatalf("older build: context %v, model name %q", st.ContextUsedPercent, st.ModelName)
	}
	if st, err := ParseStatusline(read("context.json"), t0); err != nil || st.ContextUsedPercent != 42 || st.ModelName != "Opus 4.5" {
		t.Fatalf("context.json: context %v, model name %q, %v", st.ContextUsedPercent, st.ModelName, err)
	}
	for in, want := range map[string]float64{
		`{"context_window":{"context_window_size":200000,"current_usage":{"input_tokens":1000,"cache_creation_input_tokens":1000,"cache_read_input_tokens":48000}}}`: 25,
		`{"context_window":{"context_window_size":0,"current_usage":{"input_tokens":1000}}}`:                                                                         0,
		`{"context_window":{"used_percentage":-3}}`:   0,
		`{"context_window":{"used_percentage":"42"}}`: 0,
	} {
		if st, err := ParseStatusline([]byte(in), t0); err != nil || st.ContextUsedPercent != want {
			t.Errorf("%s: context %v, want %v (%v)", in, st.ContextUsedPercent, want, err)
		}
	}

	st, err = ParseStatusline(read("apikey.json"), t0)
	if err != nil || len(st.Samples) != 0 || st.Model != "claude-opus-4-1" {
		t.Fatalf("api-key login: %+v, %v", st, err)
	}

	// Older builds: up to 105 %, a null window, model as a string, cwd only
	// in workspace.
	st, err = ParseStatusline(read("over-100.json"), t0)
	if err != nil || len(st.Samples) != 1 || st.Samples[0].UsedPercent != 100 || st.Model != "claude-x" || st.Cwd != "/w" {
		t.Fatalf("over 100: %+v, %v", st, err)
	}

	for _, in := range []string{"", "null", "[]", `"x"`, "{", "12"} {
		if _, err := ParseStatusline([]byte(in), t0); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	// A percent of the wrong type is as damaged as one out of range.
	if st, err := ParseStatusline([]byte(`{"rate_limits":{"five_hour":{"used_percentage":"37"}},"model":7}`), t0); err != nil || len(st.Samples) != 0 || !st.Damaged {
		t.Fatalf("wrong types: %+v %v, want no sample, damaged", st, err)
	}
	if st, _ := ParseStatusline([]byte(`{"rate_limits":{"five_hour":{"used_percentage":null}}}`), t0); st.Damaged {
		t.Fatalf("a null percent (not said) is no damage: %+v", st)
	}
	// A percent no source reports is no sample (neither 0 % nor 100 %).
	for _, pct := range []string{"-4", "150", "1e308"} {
		if st, err := ParseStatusline([]byte(`{"rate_limits":{"five_hour":{"used_percentage":`+pct+`}}}`), t0); err != nil || len(st.Samples) != 0 || !st.Damaged {
			t.Errorf("used_percentage %s: %+v %v, want no sample, damaged", pct, st.Samples, err)
		}
	}
}

// TestObservedAt: a reading is timed by its session's last reply, never
// after now, and the receiver's samples are left alone.
func TestObservedAt(t *testing.T) {
	in := []byte(`{"session_id":"s","rate_limits":{"five_hour":{"used_percentage":39.7,"resets_at":1763650799}}}`)
	st, err := ParseStatusline(in, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 20, 9, 59, 30, 250e6, time.UTC)
	if got := st.ObservedAt(want, t0.Add(time.Hour)); got.Samples[0].ObservedAt != want {
		t.Fatalf("observed %v, want the reply's %v", got.Samples[0].ObservedAt, want)
	}
	if st.Samples[0].ObservedAt != t0 {
		t.Fatal("ObservedAt changed its receiver's samples")
	}
	// Never after now; no reply known: the samples keep their time.
	if got := st.ObservedAt(want, want.Add(-time.Second)); got.Samples[0].ObservedAt != want.Add(-time.Second) {
		t.Fatalf("a reply after now: %v", got.Samples[0].ObservedAt)
	}
	if got := st.ObservedAt(time.Time{}, t0.Add(time.Hour)); got.Samples[0].ObservedAt != t0 {
		t.Fatalf("no reply: %v", got.Samples[0].ObservedAt)
	}
}
