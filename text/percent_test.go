package text

import (
	"math"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0%"}, {-3, "0%"}, {math.NaN(), "0%"}, {42, "42%"}, {42.04, "42%"}, {37.4, "37.4%"},
		{12.27, "12.3%"}, {99.96, "99.9%"}, {99.9, "99.9%"}, {99.7, "99.7%"}, {42.5, "42.5%"}, {100, "100%"}, {104.2, "104.2%"},
	} {
		if got := Percent(c.x); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
