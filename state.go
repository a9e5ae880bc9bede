package runway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
)

// Files in the state folder besides quota's sample log.
const (
	SnapshotName           = "snapshot.json"            // the engine's, while fresh
	statuslineSnapshotName = "statusline-snapshot.json" // without an engine (statuslineReuse)
	noticesName            = "notices.json"             // so a restart sends no notice again
	IndexName              = "logs.index"               // tail's, so a run reads only what was appended
)

// SnapshotFresh is how old the engine's snapshot may be for `runway now` to
// print it; the engine refreshes it more often while anything moves.
const SnapshotFresh = 10 * time.Second

const maxStateFile = 16 << 20 // a snapshot or the notices are a few KB

// writeJSON replaces path atomically, 0600, in a state folder made 0700:
// the rename replaces a planted link rather than writing through it.
func writeJSON(path string, v any) error {
	if _, err := statedir.Ensure(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, v)
}

// ForeignState names the state files runway will not read (a link, another
// user's file), never showing their content.
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

// storedSnapshot is a snapshot with the fingerprint of what it was made for.
type storedSnapshot struct {
	MadeFor  string        `json:"made_for"` // Env.madeFor
	Snapshot burn.Snapshot `json:"snapshot"`
}

// writeSnapshot stores a snapshot for the one-shot commands: the engine's
// (SnapshotName) or a statusline call's.
func (e Env) writeSnapshot(name string, s burn.Snapshot) error {
	return writeJSON(filepath.Join(e.StateDir, name), storedSnapshot{MadeFor: e.madeFor(), Snapshot: s})
}

// madeFor fingerprints what a snapshot's figures depend on besides the files,
// so another CLAUDE_CONFIG_DIR, CODEX_HOME or config is not answered with it.
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

// LatestSnapshot is the engine's snapshot when made for this Env and fresh
// at now (one from the future is not believed).
func (e Env) LatestSnapshot(now time.Time) (burn.Snapshot, bool) {
	return e.readSnapshot(SnapshotName, now, SnapshotFresh)
}

// RecentSnapshot is the engine's fresh snapshot, else a statusline call's:
// a prompt may run `runway now` as often as Claude Code runs the statusline.
func (e Env) RecentSnapshot(now time.Time) (burn.Snapshot, bool) {
	if s, ok := e.LatestSnapshot(now); ok {
		return s, true
	}
	return e.readSnapshot(statuslineSnapshotName, now, statuslineReuse)
}

// readSnapshot is the snapshot under name when made for this Env and fresh.
func (e Env) readSnapshot(name string, now time.Time, d time.Duration) (burn.Snapshot, bool) {
	var stored storedSnapshot
	if !e.readState(name, &stored) || stored.MadeFor != e.madeFor() || !fresh(stored.Snapshot.At, now, d) {
		return burn.Snapshot{}, false
	}
	return stored.Snapshot, true
}

// readState reads a state file into v when the folder passes statedir's
// rules: another user's file is not believed.
func (e Env) readState(name string, v any) bool {
	if _, err := statedir.Check(e.StateDir); err != nil {
		return false
	}
	b, err := statedir.ReadFile(filepath.Join(e.StateDir, name), maxStateFile)
	return err == nil && json.Unmarshal(b, v) == nil
}

// fresh says whether what was made at made is at most d old at now; one
// from the future (a clock that stepped back) is not believed.
func fresh(made, now time.Time, d time.Duration) bool {
	age := now.Sub(made)
	return age >= -time.Second && age <= d
}

// loadNotices reads the notification memory; a damaged one is empty (at
// worst one notice is sent again).
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

// restoreIndex gives tr the index the last run saved and returns its bytes.
// It is a cache: one refused, too big, or damaged is silently rebuilt.
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

// saveIndex replaces the index atomically (concurrent runs: the last one
// stays) when it changed; failing costs only the next run's speed.
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

// sourcesName holds the running engine's source states: doctor shows them
// rather than asking the back ends (and starting an app-server) again.
const sourcesName = "sources.json"

// sourcesFresh: rewritten at every poll (30 s), which may wait on a back end.
const sourcesFresh = 90 * time.Second

type engineSources struct {
	At      time.Time           `json:"at"`
	Sources []quota.SourceState `json:"sources"`
}

// sortedStates is m by name, never nil: doctor takes nil for "no engine's".
func sortedStates(m map[string]quota.SourceState) []quota.SourceState {
	out := make([]quota.SourceState, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[name])
	}
	return out
}

// writeSources stores the engine's source states as of at.
func (e Env) writeSources(at time.Time, states []quota.SourceState) error {
	if err := writeJSON(filepath.Join(e.StateDir, sourcesName), engineSources{At: at, Sources: states}); err != nil {
		return fmt.Errorf("cannot write the account sources for runway doctor: %w", err)
	}
	return nil
}

// TraySources are the account sources as a running engine last saw them,
// when it wrote them at most sourcesFresh before now.
func (e Env) TraySources(now time.Time) ([]quota.SourceState, bool) {
	var s engineSources
	if !e.readState(sourcesName, &s) || s.Sources == nil || !fresh(s.At, now, sourcesFresh) {
		return nil, false
	}
	return s.Sources, true
}
