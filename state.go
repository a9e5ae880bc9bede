package runway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/tail"
)

// Files in the state folder besides quota's sample log.
const (
	// SnapshotName is the tray's latest snapshot, read by `runway now` and
	// `runway statusline` while it is fresh.
	SnapshotName = "snapshot.json"
	// NoticesName remembers which notifications were sent, so a restart
	// does not send them again.
	NoticesName = "notices.json"
	// IndexName is tail's index of the session logs: what each file said
	// up to where it was read, so the next one-shot run reads only what
	// was appended since.
	IndexName = "logs.index"
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

// restoreIndex gives tr the index the last run saved and returns its bytes
// (nil when there was none). The index is a cache: one that is missing,
// not the user's own (see openOwn), too big, from another version or
// damaged is ignored and rebuilt, without a word, and tr reads the files
// as if it had never been.
func (e Env) restoreIndex(tr *tail.Tailer) []byte {
	if e.NoIndex || e.StateDir == "" {
		return nil
	}
	f, err := openOwn(filepath.Join(e.StateDir, IndexName))
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, tail.MaxIndexBytes+1))
	if err != nil || len(b) > tail.MaxIndexBytes || tr.RestoreIndex(b) != nil {
		return nil
	}
	return b
}

// saveIndex replaces the index with tr's, atomically (concurrent runs each
// write a whole index; the last one stays), unless nothing changed. A
// state folder that cannot be written costs only the next run's speed.
func (e Env) saveIndex(tr *tail.Tailer, old []byte) {
	if e.NoIndex || e.StateDir == "" {
		return
	}
	if old != nil && !tr.IndexChanged() {
		return
	}
	b := tr.Index()
	if b == nil || bytes.Equal(b, old) {
		return
	}
	if err := os.MkdirAll(e.StateDir, 0o700); err != nil {
		return
	}
	atomicfile.Write(filepath.Join(e.StateDir, IndexName), b)
}
