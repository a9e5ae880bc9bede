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
		st.TranscriptPath == "" {
		t.Fatalf("fields = %+v", st)
	}
	want := []burn.Sample{
		{ObservedAt: t0, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 37.4, ResetsAt: time.Unix(1763650799, 0).UTC(), Source: burn.SourceStatusline},
		{ObservedAt: t0, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 26.1, ResetsAt: time.Unix(1764057600, 0).UTC(), Source: burn.SourceStatusline},
	}
	if len(st.Samples) != 2 || st.Samples[0] != want[0] || st.Samples[1] != want[1] {
		t.Fatalf("samples = %+v", st.Samples)
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
	if st, err := ParseStatusline([]byte(`{"rate_limits":{"five_hour":{"used_percentage":"37"}},"model":7}`), t0); err != nil || len(st.Samples) != 0 {
		t.Fatalf("wrong types: %+v %v", st, err)
	}
	// A percent no source reports is no sample (neither 0 % nor 100 %).
	for _, pct := range []string{"-4", "150", "1e308"} {
		if st, err := ParseStatusline([]byte(`{"rate_limits":{"five_hour":{"used_percentage":`+pct+`}}}`), t0); err != nil || len(st.Samples) != 0 {
			t.Errorf("used_percentage %s: %+v %v, want no sample", pct, st.Samples, err)
		}
	}
}
