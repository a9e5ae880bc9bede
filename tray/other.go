//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package tray

import "errors"

func copyText(string) error { return errors.New("no clipboard on this system") }

func menuLabel(s string) string { return s }

// NewNotifier has nothing to deliver through on this system.
func NewNotifier(string) (Notifier, error) {
	return nil, errors.New("no desktop notifications on this system")
}

func autostart(string, AutostartOptions) (string, error) {
	return "", errors.New("autostart: not supported on this system")
}
