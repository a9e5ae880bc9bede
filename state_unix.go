//go:build unix

package runway

import (
	"errors"
	"os"
	"syscall"
)

// openOwn opens a state file for reading only if it is the user's own: a
// regular file (not a link, FIFO or device), owned by the user, that no
// group or other user may write.
func openOwn(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !fi.Mode().IsRegular():
			err = errors.New("not a regular file")
		case !ok || int(st.Uid) != os.Getuid():
			err = errors.New("not owned by this user")
		case fi.Mode().Perm()&0o022 != 0:
			err = errors.New("writable by others")
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
