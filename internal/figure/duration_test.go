package figure

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{25 * time.Minute, "25 min"}, {29 * time.Second, "<1 min"}, {65 * time.Minute, "1 h 5 min"},
		{72 * time.Minute, "1 h 12 min"}, {2 * time.Hour, "2 h"}, {51 * time.Hour, "2 d 3 h"},
		{48 * time.Hour, "2 d"}, {-8 * time.Minute, "8 min"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	now := time.Date(2026, 3, 2, 13, 40, 0, 0, time.UTC)
	if got := Countdown(now.Add(8*time.Minute), now); got != "in 8 min" {
		t.Errorf("Countdown = %q", got)
	}
	if got := Countdown(now.Add(-time.Minute), now); got != "now" {
		t.Errorf("a past instant counts down to %q, want now", got)
	}
}
