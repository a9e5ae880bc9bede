package text

import (
	"math"
	"testing"
	"time"
)

func TestSpan(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{25 * time.Minute, "25m"}, {29 * time.Second, "29s"}, {65 * time.Minute, "1h05m"},
		{72 * time.Minute, "1h12m"}, {2 * time.Hour, "2h00m"}, {51 * time.Hour, "2d3h"},
		{48 * time.Hour, "2d0h"}, {-8 * time.Minute, "8m"}, {math.MinInt64, "106751d23h"},
	} {
		if got := Span(c.d); got != c.want {
			t.Errorf("Span(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	now := time.Date(2026, 3, 2, 13, 40, 0, 0, time.UTC)
	if got := Countdown(now.Add(8*time.Minute), now); got != "in 8m" {
		t.Errorf("Countdown = %q", got)
	}
	if got := Countdown(now.Add(-time.Minute), now); got != "now" {
		t.Errorf("a past instant counts down to %q, want now", got)
	}
}

func TestRate(t *testing.T) {
	for _, c := range []struct {
		mh   float64
		want string
	}{{38.4, "38m/h"}, {6.54, "6.5m/h"}, {9.96, "10m/h"}, {0.2, "0.2m/h"}, {-3, "0.0m/h"}, {0, "0.0m/h"}, {37.6, "38m/h"}} {
		if got := PerHour(c.mh); got != c.want {
			t.Errorf("PerHour(%v) = %q, want %q", c.mh, got, c.want)
		}
	}
}
