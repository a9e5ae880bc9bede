//go:build unix

package quota

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether the current user owns a file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// othersCanWrite: the group or others may write it (a shared /tmp).
func othersCanWrite(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o022 != 0 }

// noFollow opens a file in the shared /tmp without following a symlink or
// blocking on a FIFO someone put there.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// nonBlock opens without blocking on a FIFO.
const nonBlock = syscall.O_NONBLOCK
