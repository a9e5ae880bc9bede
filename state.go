package runway

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
)

// Files in the state folder besides quota's sample log.
const (
	// SnapshotName is the tray's latest snapshot, read by `runway now` and
	// `runway statusline` while it is fresh.
	SnapshotName = "snapshot.json"
	// NoticesName remembers which notifications were sent, so a restart
	// does not send them again.
	NoticesName = "notices.json"
)

// SnapshotFresh is how old the tray's snapshot may be for `runway now` to
// print it instead of computing its own. The engine refreshes it more often
// than this while anything moves.
const SnapshotFresh = 10 * time.Second

// writeJSON replaces path with v's JSON atomically, 0600, creating the
// state folder (0700) if need be.
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, v)
}

// WriteSnapshot stores the engine's latest snapshot for the one-shot
// commands.
func (e Env) WriteSnapshot(s burn.Snapshot) error {
	return writeJSON(filepath.Join(e.StateDir, SnapshotName), s)
}

// LatestSnapshot returns the tray's snapshot when it is no older than
// SnapshotFresh at now (and not from the future: a clock that jumped back
// makes it untrustworthy).
func (e Env) LatestSnapshot(now time.Time) (burn.Snapshot, bool) {
	b, err := os.ReadFile(filepath.Join(e.StateDir, SnapshotName))
	if err != nil {
		return burn.Snapshot{}, false
	}
	var s burn.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return burn.Snapshot{}, false
	}
	age := now.Sub(s.At)
	if age < -time.Second || age > SnapshotFresh {
		return burn.Snapshot{}, false
	}
	return s, true
}

// loadNotices reads the notification memory; a missing or damaged file is
// an empty memory (at worst one notification is sent again).
func (e Env) loadNotices() burn.NoticeMemory {
	var m burn.NoticeMemory
	b, err := os.ReadFile(filepath.Join(e.StateDir, NoticesName))
	if err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}

func (e Env) saveNotices(m burn.NoticeMemory) error {
	if err := writeJSON(filepath.Join(e.StateDir, NoticesName), m); err != nil {
		return fmt.Errorf("save notification memory: %w", err)
	}
	return nil
}
