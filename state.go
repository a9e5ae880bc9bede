package runway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
	"github.com/agentrunway/runway/tail"
)

// Files in the state folder besides quota's sample log.
const (
	// SnapshotName is the tray's latest snapshot, read by `runway now` and
	// `runway statusline` while it is fresh.
	SnapshotName = "snapshot.json"
	// statuslineSnapshotName is the snapshot the last statusline call
	// computed without a tray, for the calls that follow it
	// (statuslineReuse).
	statuslineSnapshotName = "statusline-snapshot.json"
	// noticesName remembers which notifications were sent, so a restart
	// does not send them again.
	noticesName = "notices.json"
	// IndexName is tail's index of the session logs: what each file said
	// up to where it was read, so the next one-shot run reads only what
	// was appended since.
	IndexName = "logs.index"
)

// SnapshotFresh is how old the tray's snapshot may be for `runway now` to
// print it instead of computing its own. The engine refreshes it more often
// than this while anything moves.
const SnapshotFresh = 10 * time.Second

// maxStateFile bounds what is read of a snapshot or the notices; both are
// a few KB.
const maxStateFile = 16 << 20

// writeJSON replaces path with v's JSON atomically, 0600, under the state
// folder's rules (created 0700, the user's own): the rename replaces a
// planted link rather than writing through it.
func writeJSON(path string, v any) error {
	if _, err := statedir.Ensure(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, v)
}

// ForeignState names the state files runway will not read: a symbolic
// link, or another user's file, where its snapshot or notices should be.
// Their content is never shown.
func (e Env) ForeignState() []string {
	var out []string
	for _, name := range []string{SnapshotName, statuslineSnapshotName, noticesName, sourcesName} {
		path := filepath.Join(e.StateDir, name)
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 || !fi.Mode().IsRegular() {
			out = append(out, fmt.Sprintf("%v: ignored", statedir.NotRegular(path, fi)))
		} else if !statedir.OwnedByMe(fi) {
			out = append(out, fmt.Sprintf("%s belongs to another user: ignored (remove it)", path))
		}
	}
	return out
}

// storedSnapshot is snapshot.json: the snapshot and what it was made for.
type storedSnapshot struct {
	// MadeFor is the fingerprint of the roots and settings the snapshot
	// was computed with (Env.madeFor).
	MadeFor  string        `json:"made_for"`
	Snapshot burn.Snapshot `json:"snapshot"`
}

// WriteSnapshot stores the engine's latest snapshot for the one-shot
// commands, with the fingerprint of what it was made for.
func (e Env) WriteSnapshot(s burn.Snapshot) error {
	return e.writeSnapshot(SnapshotName, s)
}

func (e Env) writeSnapshot(name string, s burn.Snapshot) error {
	return writeJSON(filepath.Join(e.StateDir, name), storedSnapshot{MadeFor: e.madeFor(), Snapshot: s})
}

// madeFor fingerprints what a snapshot depends on besides the files: the
// roots, the burn settings, the lookback and cache-read weight, the shared
// cache's folder and the home. Another CLAUDE_CONFIG_DIR, CODEX_HOME or
// config must not be answered with the tray's snapshot. (Offline is left
// out: it decides what this process may ask, not how figures are made.)
func (e Env) madeFor() string {
	b, _ := json.Marshal(struct {
		Roots           tail.Roots
		Burn            burn.Config
		Lookback        Duration
		CacheReadWeight float64
		CacheDir, Home  string
		Endpoint        string
	}{e.Roots, e.Config.Burn(), e.Config.Lookback, e.Config.CacheReadWeight, e.ClaudeCacheDir, e.Home, e.ClaudeEndpoint})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// LatestSnapshot returns the tray's snapshot when it was made for this
// Env's roots and settings and is no older than SnapshotFresh at now (and
// not from the future: a clock that jumped back makes it untrustworthy).
func (e Env) LatestSnapshot(now time.Time) (burn.Snapshot, bool) {
	return e.readSnapshot(SnapshotName, now, SnapshotFresh)
}

// RecentSnapshot is what `runway now` answers from instead of reading the
// logs: the tray's fresh snapshot, else the one a statusline call computed
// less than statuslineReuse ago. Claude Code runs the statusline after
// every message, and a shell prompt or a terminal's status bar may run
// `runway now` as often: either answers the other.
func (e Env) RecentSnapshot(now time.Time) (burn.Snapshot, bool) {
	if s, ok := e.LatestSnapshot(now); ok {
		return s, true
	}
	return e.readSnapshot(statuslineSnapshotName, now, statuslineReuse)
}

// readSnapshot is the snapshot stored under name when it was made for this
// Env and is no older than fresh at now.
func (e Env) readSnapshot(name string, now time.Time, fresh time.Duration) (burn.Snapshot, bool) {
	if _, err := statedir.Check(e.StateDir); err != nil {
		return burn.Snapshot{}, false
	}
	b, err := statedir.ReadFile(filepath.Join(e.StateDir, name), maxStateFile)
	if err != nil {
		return burn.Snapshot{}, false
	}
	var stored storedSnapshot
	if err := json.Unmarshal(b, &stored); err != nil || stored.MadeFor != e.madeFor() {
		return burn.Snapshot{}, false
	}
	s := stored.Snapshot
	age := now.Sub(s.At)
	if age < -time.Second || age > fresh {
		return burn.Snapshot{}, false
	}
	return s, true
}

// loadNotices reads the notification memory; a missing or damaged file is
// an empty memory (at worst one notification is sent again).
func (e Env) loadNotices() burn.NoticeMemory {
	var m burn.NoticeMemory
	b, err := statedir.ReadFile(filepath.Join(e.StateDir, noticesName), maxStateFile)
	if err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}

func (e Env) saveNotices(m burn.NoticeMemory) error {
	if err := writeJSON(filepath.Join(e.StateDir, noticesName), m); err != nil {
		return fmt.Errorf("save notification memory: %w", err)
	}
	return nil
}

// restoreIndex gives tr the index the last run saved and returns its bytes
// (nil when there was none). The index is a cache: one that is missing,
// refused by the state folder's rules (statedir), too big, from another
// version or damaged is ignored and rebuilt, without a word, and tr reads
// the files as if it had never been.
func (e Env) restoreIndex(tr *tail.Tailer) []byte {
	if e.NoIndex || e.StateDir == "" {
		return nil
	}
	if _, err := statedir.Check(e.StateDir); err != nil {
		return nil
	}
	b, err := statedir.ReadFile(filepath.Join(e.StateDir, IndexName), tail.MaxIndexBytes+1)
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
	if _, err := statedir.Ensure(e.StateDir); err != nil {
		return
	}
	atomicfile.Write(filepath.Join(e.StateDir, IndexName), b)
}
