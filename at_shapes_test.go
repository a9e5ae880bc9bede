package runway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A new Claude session opens its transcript with an unstamped
// file-history-snapshot line; five minutes in, `runway now --at` shows it
// burning as live runway does.
func TestAtReadsANewSession(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	s := w.session("dddd0000-0000-4000-8000-00000000000d")
	w.write(s.path, []byte(fmt.Sprintf(`{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"%s"},"isSnapshotUpdate":false}`+"\n",
		base.UTC().Format("2006-01-02T15:04:05.000Z"))))
	// 1 % a minute (180 m/h of a 5-hour window), a reply every 20 s.
	var at time.Time
	for i := 1; i <= 15; i++ {
		at = base.Add(time.Duration(i) * 20 * time.Second)
		s.reply(at, 30+float64(i)/3)
	}
	now := at.Add(5 * time.Second)
	live := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	replay := w.env().Evaluate(context.Background(), EvalOptions{At: now}).Snapshot
	share := func(s burn.Snapshot) string {
		for _, ss := range s.Sessions {
			if ss.ID == "dddd0000-0000-4000-8000-00000000000d" {
				return fmt.Sprintf("%.0f m/h (%s)", ss.QuotaMinutesPerHour, ss.RateKind)
			}
		}
		return "none"
	}
	t.Logf("live: session %s, account %.0f m/h; --at: session %s, account %.0f m/h",
		share(live), live.Provider(burn.Claude).Burn.QuotaMinutesPerHour, share(replay), replay.Provider(burn.Claude).Burn.QuotaMinutesPerHour)
	if diff := snapshotDiff(live, replay); len(diff) > 0 {
		t.Errorf("--at differs from live:\n  %v", diff)
	}
}
