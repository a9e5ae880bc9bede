// Package text writes what every surface shows: the `runway now` line and
// report, the templates, the statusline, notifications, and the figures the
// tray and `runway watch` are made of, each one way so it reads the same
// wherever it shows.
package text

import (
	"fmt"
	"math"
)

// Percent prints a used percent as the sources report it, one decimal at
// most, never rounded up to 100 % before the window is used up, nor below 0.
func Percent(x float64) string {
	if !(x > 0) {
		return "0%"
	}
	if x < 100 {
		x = math.Min(x, 99.9) // 99.96 is not "100%": the window still runs
	}
	if math.Abs(x-math.Round(x)) < 0.05 {
		return fmt.Sprintf("%.0f%%", math.Round(x))
	}
	return fmt.Sprintf("%.1f%%", math.Floor(x*10+0.5)/10)
}
