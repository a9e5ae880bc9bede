//go:build !(linux || freebsd || openbsd || netbsd)

package tray

import (
	"context"
	"runtime"
)

// notificationServer: macOS and Windows always have their own.
func notificationServer(context.Context) (string, error) {
	return runtime.GOOS + " notifications", nil
}
