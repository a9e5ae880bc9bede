//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package metrics

import "syscall"

// cpuSeconds is the process's user and system CPU time from getrusage.
func cpuSeconds() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
