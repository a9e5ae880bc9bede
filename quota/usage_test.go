package quota

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

func usageFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "usage", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseUsage(t *testing.T) {
	reset5 := time.Date(2026, 11, 20, 14, 59, 59, 771647000, time.UTC)
	resetW := time.Date(2026, 11, 25, 8, 0, 0, 123456000, time.UTC)
	cases := []struct {
		file string
		want []burn.Sample
		err  error
	}{
		{"windows.json", []burn.Sample{
			{ObservedAt: t0, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 37, ResetsAt: reset5, Source: burn.SourceOAuth},
			{ObservedAt: t0, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 26, ResetsAt: resetW, Source: burn.SourceOAuth},
		}, nil},
		{"limits-only.json", []burn.Sample{
			{ObservedAt: t0, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 52, ResetsAt: reset5, Source: burn.SourceOAuth},
			{ObservedAt: t0, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 31, ResetsAt: resetW, Source: burn.SourceOAuth},
		}, nil},
		{"weekly-null.json", []burn.Sample{
			{ObservedAt: t0, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 4, ResetsAt: reset5, Source: burn.SourceOAuth},
		}, nil},
		{"error-429.json", nil, errUsageError},
		{"error-401.json", nil, errUsageError},
		{"html.html", nil, errNotUsage},
		{"truncated.json", nil, errNotUsage},
		{"no-window.json", nil, errNoWindow},
	}
	for _, tc := range cases {
		got, err := parseUsage(usageFile(t, tc.file), t0, burn.SourceOAuth)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", tc.file, err, tc.err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v", tc.file, got)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %+v\nwant %+v", tc.file, got[i], tc.want[i])
			}
		}
	}
}
