//go:build unix

package statedir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// OwnedByMe reports whether the current user owns a file.
func OwnedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// OthersCanWrite: the group or others may write it (a shared /tmp).
func OthersCanWrite(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o022 != 0 }

const (
	// NoFollow opens without following a symbolic link in the file's place.
	NoFollow = syscall.O_NOFOLLOW
	// NonBlock opens without blocking on a FIFO put in the file's place.
	NonBlock = syscall.O_NONBLOCK
)

// isLoop: O_NOFOLLOW met a symbolic link.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// O_NOFOLLOW does the work on unix.
func beforeOpen(string) error             { return nil }
func afterOpen(string, fs.FileInfo) error { return nil }
