//go:build !linux

package metrics

// residentBytes is unknown here: getrusage gives the peak, not the
// current resident set, and the system calls that tell it are not worth
// their code for one gauge.
func residentBytes() (float64, bool) { return 0, false }
