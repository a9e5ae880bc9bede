package runway

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// staleStdin is a statusline call that says nothing of its session: no
// session_id, no transcript_path, only the figures it last had.
func staleStdin(used5h float64, reset time.Time) []byte {
	b, _ := json.Marshal(map[string]any{
		"model":   map[string]any{"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
		"version": "2.1.197",
		"rate_limits": map[string]any{
			"five_hour": map[string]any{"used_percentage": used5h, "resets_at": reset.Unix()},
			"seven_day": map[string]any{"used_percentage": 26.1, "resets_at": reset.Add(100 * time.Hour).Unix()},
		},
	})
	return b
}

// A session burns 90 m/h; a statusline call with nothing to time it by
// re-sends a figure below the current one (an idle session's). It changes
// nothing: the figures of the minute after are those without it. (One
// step below, it read as a new series: the burn 47 % off for a minute.)
func TestStatuslineStaleResendChangesNothing(t *testing.T) {
	for _, below := range []float64{0.1, 0.2, 0.5, 2} {
		play := func(stale bool) (figures []float64) {
			w := newWorld(t)
			base := w.start.Add(time.Hour)
			s := w.session("eeee0000-0000-4000-8000-00000000000e")
			// 0.1 % every 12 s: 90 m/h.
			var at time.Time
			used := 30.0
			for i := 1; i <= 40; i++ {
				at = base.Add(time.Duration(i) * 12 * time.Second)
				used = 30 + float64(i)/10
				s.reply(at, used)
			}
			if stale {
				if _, err := w.env().Statusline(context.Background(), staleStdin(used-below, w.start.Add(4*time.Hour)), at.Add(2*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			for k := 1; k <= 8; k++ {
				at2 := at.Add(time.Duration(k) * 12 * time.Second)
				s.reply(at2, used+float64(k)/10)
				p := w.claudeWindow(at2.Add(time.Second))
				figures = append(figures, p.Burn.QuotaMinutesPerHour, p.Window.UsedPercent)
			}
			return figures
		}
		want, got := play(false), play(true)
		worst := 0.0
		for i := 0; i < len(want); i += 2 {
			worst = max(worst, math.Abs(got[i]-want[i])/want[i])
			if math.Abs(got[i]-want[i]) > 1e-6 || math.Abs(got[i+1]-want[i+1]) > 1e-9 {
				t.Errorf("%.1f %% below: %d s after, %.1f m/h at %.1f %%, without it %.1f m/h at %.1f %%", below, 12*(i/2+1), got[i], got[i+1], want[i], want[i+1])
			}
		}
		t.Logf("a reading %.1f %% below: the burn of the next 96 s up to %.0f %% off the one without it", below, worst*100)
	}
}
