package quota

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
)

// State files that make pacing hold across runway processes.
const (
	pacingName   = "oauth-pacing.json"
	lockName     = "oauth-pacing.lock"
	seenName     = "oauth-cache-seen.json"
	jsonSeenName = "claude-json-seen.json" // when a future-stamped ~/.claude.json figure was first seen
	staleLock    = 30 * time.Second
)

// pacing is the usage endpoint's shared budget and last outcome; no secret.
type pacing struct {
	LastCall     time.Time `json:"last_call,omitzero"`
	LastOK       time.Time `json:"last_ok,omitzero"`
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	Failures     int       `json:"failures,omitempty"`
	Rejected     string    `json:"rejected_token,omitempty"` // fingerprint of a token the endpoint refused
	// The last outcome, for processes that did not call.
	State  State  `json:"state,omitempty"`
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
}

// load decodes the state file name into v: from runway's state folder, so
// every runway process agrees, else from this process's memory. A missing or
// corrupt one leaves v empty.
func (c *ClaudeSources) load(name string, v any) {
	b := c.mem[name]
	if c.StateDir != "" {
		var err error
		if b, err = statedir.ReadFile(filepath.Join(c.StateDir, name), 1<<20); err != nil {
			return
		}
	}
	_ = json.Unmarshal(b, v)
}

// save writes v as the state file name (see load).
func (c *ClaudeSources) save(name string, v any) error {
	if c.StateDir == "" {
		b, err := json.Marshal(v)
		if c.mem == nil {
			c.mem = map[string][]byte{}
		}
		c.mem[name] = b
		return err
	}
	if _, err := statedir.Ensure(c.StateDir); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(c.StateDir, name), v)
}

// errLocked: another process is deciding or recording a call right now.
var errLocked = errors.New("quota: another runway process holds the usage endpoint's pacing lock")

// lockState takes the cross-process pacing lock, breaking one older than
// staleLock (left by a crash; real clock, as file times are).
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
