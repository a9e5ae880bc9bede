package quota

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/internal/statedir"
)

// Files in the state folder that make pacing hold across processes: the
// one-shot `runway now` and the long-lived tray share one budget.
const (
	pacingName = "oauth-pacing.json"
	lockName   = "oauth-pacing.lock"
	seenName   = "oauth-cache-seen.json"
	// jsonSeenName: when a ~/.claude.json figure stamped in the future
	// was first seen.
	jsonSeenName = "claude-json-seen.json"
	staleLock    = 30 * time.Second
)

// pacing is the usage endpoint's shared budget and its last outcome. It
// holds no secret: a refused token is named by its fingerprint.
type pacing struct {
	LastCall     time.Time `json:"last_call,omitzero"`
	LastOK       time.Time `json:"last_ok,omitzero"`
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	Failures     int       `json:"failures,omitempty"`
	Rejected     string    `json:"rejected_token,omitempty"` // fingerprint of a token the endpoint refused
	// The last outcome, so a process that did not call can still say how
	// the source is doing.
	State  State  `json:"state,omitempty"`
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
}

// readJSON decodes a small state file; a missing or corrupt one is empty.
func readJSON(path string, v any) {
	b, err := statedir.ReadFile(path, 1<<20)
	if err != nil {
		return
	}
	_ = json.Unmarshal(b, v)
}

// errLocked: another process is deciding or recording a call right now.
var errLocked = errors.New("quota: another runway process holds the usage endpoint's pacing lock")

// lockState takes the cross-process pacing lock (a file created
// exclusively); a lock older than staleLock was left by a crash and is
// broken (judged by the real clock, as file times are). The returned function releases it.
func lockState(dir string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	if _, err := statedir.Ensure(dir); err != nil {
		return nil, fmt.Errorf("quota: state folder: %w", err)
	}
	path := filepath.Join(dir, lockName)
	for range 2 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("quota: pacing lock: %w", err)
		}
		fi, serr := os.Stat(path)
		if serr != nil || time.Since(fi.ModTime()) < staleLock {
			return nil, errLocked
		}
		os.Remove(path)
	}
	return nil, errLocked
}
