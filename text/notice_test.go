package text

import (
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A burning-fast notice reads the burn against the pace that lasts to the
// reset (issue 24 item 9), in the words of every surface.
func TestNoticeSaysWhatLasts(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 25, 0, 0, time.UTC)
	reset, runout := now.Add(125*time.Minute), now.Add(100*time.Minute)
	n := burn.Notice{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour, UsedPercent: 42,
		ResetsAt: &reset, RunoutAt: &runout, Burn: burn.Burn{QuotaMinutesPerHour: 104.4, SustainableQuotaMinutesPerHour: 83.5, Method: burn.MethodNowcast},
		Top: &burn.SessionStatus{Provider: burn.Claude, ID: "a", Project: "/src/my-app", QuotaMinutesPerHour: 38, PauseGainMinutes: 12}}
	summary, body := Notice(n, now, time.UTC)
	if want := "Claude 5h runs out in 1h40m — 14:05, 25m before the reset"; summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	if want := "my-app burns 38m/h; pausing it buys 12m. The window burns 104m/h; up to 84m/h lasts to the reset."; body != want {
		t.Errorf("body %q, want %q", body, want)
	}
}
