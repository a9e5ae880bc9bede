//go:build unix

package otlp

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes f's advisory lock without waiting.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errHeld
	}
	return err
}
