package text

import (
	"fmt"
	"math"
	"time"
)

// Span writes a duration the one way every surface does: "45s", "25m",
// "1h05m", "2d3h": short for a narrow status line, to the minute as quota
// is counted. A negative span counts as its size.
func Span(d time.Duration) string {
	if d < 0 {
		d = -max(d, -math.MaxInt64) // the most negative has no positive
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Minutes is Span of the snapshot's *_minutes fields, with its sign
// ("-25m"), never wrapped around by an overflow; NaN is "?".
func Minutes(m float64) string {
	switch {
	case math.IsNaN(m):
		return "?"
	case m < 0:
		return "-" + Minutes(-m)
	case m >= float64(math.MaxInt64/int64(time.Minute)):
		return Span(math.MaxInt64)
	}
	return Span(time.Duration(m * float64(time.Minute)))
}

// Countdown is how long until t from now: "in 8m", or "now" once t has come.
func Countdown(t, now time.Time) string {
	if !t.After(now.Add(30 * time.Second)) {
		return "now"
	}
	return "in " + Span(t.Sub(now))
}

// Rate writes quota minutes per hour as a number: one decimal below 10,
// whole above; never below zero.
func Rate(mh float64) string {
	mh = max(mh, 0)
	if mh < 9.95 {
		return fmt.Sprintf("%.1f", mh)
	}
	return fmt.Sprintf("%.0f", mh)
}

// PerHour writes quota minutes per hour with its unit: "38m/h", "6.5m/h".
func PerHour(mh float64) string { return Rate(mh) + "m/h" }
