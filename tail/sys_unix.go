//go:build unix

package tail

import (
	"os"
	"syscall"
)

// fileIDsKnown: a file's device and inode are in its stat.
const fileIDsKnown = true

func fileIDOf(info os.FileInfo) (fileID, bool) {
	if info == nil {
		return fileID{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// openRegular opens a file for reading without blocking on a FIFO that
// took the place of a session file between the scan and the open.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return checkRegular(f)
}
