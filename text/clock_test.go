package text

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	now := time.Date(2026, 3, 2, 13, 40, 0, 0, time.UTC) // a Monday
	cet := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		t    time.Time
		loc  *time.Location
		want string
	}{
		{now.Add(time.Hour), time.UTC, "14:40"},
		{now.Add(30 * time.Hour), time.UTC, "Tue 19:40"},
		{now.Add(9 * 24 * time.Hour), time.UTC, "Mar 11 13:40"},
		{now.Add(-48 * time.Hour), time.UTC, "Feb 28 13:40"},
		// Past midnight, 11 hours on: tomorrow, not "earlier today".
		{now.Add(11 * time.Hour), time.UTC, "Tue 00:40"},
		// The day is the one in loc: 23:40 UTC is 00:40 on Tuesday in CET.
		{now.Add(10 * time.Hour), cet, "Tue 00:40"},
		{now.Add(-time.Hour), time.UTC, "12:40"},
	} {
		if got := Clock(c.t, now, c.loc); got != c.want {
			t.Errorf("Clock(%v in %v) = %q, want %q", c.t, c.loc, got, c.want)
		}
	}
}
