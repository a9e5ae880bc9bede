// Package figure prints what every surface shows alike, so a percent or a
// session's name reads the same in the tray, `runway now` and a notification.
package figure

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
