//go:build unix

package tail

import (
	"os"
	"syscall"
)

// openRegular opens a file for reading without blocking on a FIFO that
// took the place of a session file between the scan and the open.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return checkRegular(f)
}
