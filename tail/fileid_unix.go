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
