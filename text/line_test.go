package text

import (
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A window that lasts only at a burn figure its ticks prove behind shows
// "?" for its verdict, not ☺, and --long says why.
func TestLineUnproven(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	reset := at.Add(3 * time.Hour)
	w := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 40, State: burn.OnTrack, ResetsAt: &reset, Fresh: true, ObservedAt: at,
		Burn: burn.Burn{QuotaMinutesPerHour: 45, Method: burn.MethodMeasured, Settling: true, Behind: true}}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, Window: w, State: w.State, Burn: w.Burn}}}
	if got := Line(s, time.UTC); got != "claude 5h 40% ~45m/h ?" {
		t.Errorf("line %q", got)
	}
	if got := Report(s, time.UTC); !strings.Contains(got, "measured, settling, the percent rises faster") {
		t.Errorf("--long:\n%s", got)
	}
	w.Burn.Behind = false
	if got := Line(s, time.UTC); got != "claude 5h 40% ~45m/h ☺" {
		t.Errorf("settling, not behind: %q", got)
	}
}
