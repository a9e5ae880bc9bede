package otlp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentrunway/runway/internal/statedir"
)

// lockName is the lock the receiving process holds in its state folder.
const lockName = "remote.lock"

// errHeld: another process holds the lock.
var errHeld = errors.New("held by another process")

// LockStore takes the state folder's store of remote sessions for this
// process, naming listen in the lock for the next one to read: two
// receivers on one folder each save only their own sessions over the
// other's. release lets it go; the system does when the process ends.
func LockStore(dir, listen string) (release func(), err error) {
	if _, err := statedir.Ensure(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockName)
	f, err := statedir.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the remote sessions: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := statedir.ReadAll(f, 512)
		f.Close()
		if !errors.Is(err, errHeld) {
			return nil, fmt.Errorf("lock the remote sessions: %s: %w", path, err)
		}
		who := "another runway serve, or a tray with --listen,"
		if h := strings.TrimSpace(string(holder)); h != "" {
			who = fmt.Sprintf("another runway (%s)", h)
		}
		return nil, fmt.Errorf("%s already receives telemetry into %s: stop it, or give this one its own state folder (RUNWAY_STATE_DIR)", who, dir)
	}
	f.Truncate(0)
	f.WriteAt(fmt.Appendf(nil, "pid %d, listening on %s\n", os.Getpid(), listen), 0)
	return func() { f.Close() }, nil
}
