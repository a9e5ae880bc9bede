//go:build unix

package runway

import (
	"syscall"
	"time"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// cpuTime is the CPU this process used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
