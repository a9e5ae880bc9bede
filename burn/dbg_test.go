package burn

import (
	"testing"
	"time"
)

func TestDbg(t *testing.T) {
	debugNowcast = func(pps, local, now, unc float64, since time.Time) {
		t.Logf("v %.1f local %.1f now %.1f unc %.1f since %v", QuotaMinutesPerHour(pps, 300), QuotaMinutesPerHour(local, 300), QuotaMinutesPerHour(now, 300), QuotaMinutesPerHour(unc, 300), since.Sub(t0))
	}
	defer func() { debugNowcast = nil }()
	for _, sc := range changeScenarios() {
		if sc.name == "elsewhere starts, statusline" {
			sc.check(t)
		}
	}
}
