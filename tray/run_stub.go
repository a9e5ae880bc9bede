//go:build !(linux || freebsd || openbsd || netbsd || windows || (darwin && cgo))

package tray

import (
	"context"
	"fmt"

	"github.com/agentrunway/runway/burn"
)

// Run has no tray to show on this build (macOS without cgo, or an OS systray
// does not support): it returns ErrNoTrayHost so the caller runs
// notifier-only.
func Run(ctx context.Context, snapshots <-chan burn.Snapshot, opts Options) error {
	return fmt.Errorf("%w: this build of runway has no tray (on macOS it needs cgo)", ErrNoTrayHost)
}
