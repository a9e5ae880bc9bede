//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package tray

import (
	"context"
	"errors"
)

func copyText(string) error { return errors.New("no clipboard on this system") }

func menuLabel(s string) string { return s }

var errNoNotifications = errors.New("no desktop notifications on this system")

func NewNotifier() (Notifier, error) { return nil, errNoNotifications }

func askNotificationServer(context.Context) (string, error) { return "", errNoNotifications }

func autostart(string, AutostartOptions) (string, error) {
	return "", errors.New("autostart: not supported on this system")
}
