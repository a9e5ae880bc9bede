//go:build linux || darwin

package tail

import (
	"os"
	"syscall"
	"time"
)

// changeTimeOf is a file's status-change time (ctime): every write moves
// it, and no call sets it back as one sets a modification time.
func changeTimeOf(info os.FileInfo) (time.Time, bool) {
	if info == nil {
		return time.Time{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	sec, nsec := ctime(st)
	return time.Unix(sec, nsec), true
}
