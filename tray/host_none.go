//go:build !(linux || freebsd || openbsd || netbsd || windows || (darwin && cgo))

package tray

import (
	"context"
	"fmt"
)

// checkTrayHost: this build has no tray code (macOS needs cgo).
func checkTrayHost(context.Context) error {
	return fmt.Errorf("%w: this build of runway has no tray support (macOS needs a cgo build)", ErrNoTrayHost)
}
