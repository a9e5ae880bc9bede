package otlp

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile locks a byte far past f's text without waiting, so the next
// process can still read who holds it.
func lockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errHeld
	}
	return err
}
