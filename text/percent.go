// Package text writes what every surface shows: the `runway now` line and
// long report, the --format templates, the statusline, and the figures the
// tray, its notifications and `runway watch` are made of. There is one way
// to write a percent, a rate, a span, a countdown, a clock and a session's
// name, so each reads the same wherever it shows.
package text

import (
	"fmt"
	"math"
)

// Percent prints a used percent as the sources report it: whole numbers
// plainly, fractions with one decimal. It never rounds up to 100 % a
// window that is not used up, nor below 0.
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
