//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package metrics

// cpuSeconds is left out where getrusage does not exist (Windows).
func cpuSeconds() (float64, bool) { return 0, false }
