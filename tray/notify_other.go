//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package tray

import "errors"

// NewNotifier has nothing to deliver through on this system.
func NewNotifier(appName string) (Notifier, error) {
	return nil, errors.New("no desktop notifications on this system")
}
