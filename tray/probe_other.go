//go:build !(linux || freebsd || openbsd || netbsd)

package tray

import (
	"context"
	"runtime"
)

// askNotificationServer: macOS and Windows always have their own.
func askNotificationServer(context.Context) (string, error) {
	return runtime.GOOS + " notifications", nil
}
