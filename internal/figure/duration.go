package figure

import (
	"fmt"
	"time"
)

// Duration shows a span to the minute as every desktop surface (menu,
// tooltip, notification) does: "25 min", "1 h 5 min", "2 d 3 h". Under a
// minute is "<1 min"; a negative span counts as its size.
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	m := int(d.Round(time.Minute) / time.Minute)
	switch {
	case m < 1:
		return "<1 min"
	case m < 60:
		return fmt.Sprintf("%d min", m)
	case m < 24*60:
		if m%60 == 0 {
			return fmt.Sprintf("%d h", m/60)
		}
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	h := (m + 30) / 60
	if h%24 == 0 {
		return fmt.Sprintf("%d d", h/24)
	}
	return fmt.Sprintf("%d d %d h", h/24, h%24)
}

// Countdown is how long until t from now: "in 8 min", or "now" once t has
// come.
func Countdown(t, now time.Time) string {
	if !t.After(now.Add(30 * time.Second)) {
		return "now"
	}
	return "in " + Duration(t.Sub(now))
}
