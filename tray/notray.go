//go:build !(linux || freebsd || openbsd || netbsd || windows || (darwin && cgo))

package tray

import (
	"context"
	"fmt"

	"github.com/agentrunway/runway/burn"
)

// checkTrayHost: this build has no tray code (macOS needs cgo).
func checkTrayHost(context.Context) error {
	return fmt.Errorf("%w: this build of runway has no tray support (macOS needs a cgo build)", ErrNoTrayHost)
}

// Run has no tray to show on this build: the caller runs notifier-only.
func Run(ctx context.Context, _ <-chan burn.Snapshot, _ Options) error { return checkTrayHost(ctx) }
