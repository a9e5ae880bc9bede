//go:build !unix

package runway

import (
	"errors"
	"os"
)

// openOwn opens a state file for reading if it is a regular file, not a
// link (the state folder is per user on Windows; its permission bits are
// synthesized).
func openOwn(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.Open(path)
}
