package runway

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentrunway/runway/internal/statedir"
	"github.com/agentrunway/runway/quota"
)

// sourcesName is the running engine's account-source states in the state
// folder: `runway doctor` shows them while the tray runs rather than
// asking the back ends (and starting a Codex app-server) a second time.
const sourcesName = "sources.json"

// sourcesFresh is how old that file may be to count as a running tray's:
// the engine rewrites it at every poll (30 s), and a poll may wait on a slow
// back end.
const sourcesFresh = 90 * time.Second

type engineSources struct {
	At      time.Time           `json:"at"`
	Sources []quota.SourceState `json:"sources"`
}

// writeSources stores the engine's source states as of at.
func (e Env) writeSources(at time.Time, m map[string]quota.SourceState) error {
	out := engineSources{At: at}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out.Sources = append(out.Sources, m[name])
	}
	if err := writeJSON(filepath.Join(e.StateDir, sourcesName), out); err != nil {
		return fmt.Errorf("cannot write the account sources for runway doctor: %w", err)
	}
	return nil
}

// TraySources are the account sources as a running tray last saw them,
// when it wrote them no longer than sourcesFresh before now.
func (e Env) TraySources(now time.Time) ([]quota.SourceState, bool) {
	// The state folder's rules: another user's file is not believed.
	if _, err := statedir.Check(e.StateDir); err != nil {
		return nil, false
	}
	b, err := statedir.ReadFile(filepath.Join(e.StateDir, sourcesName), maxStateFile)
	if err != nil {
		return nil, false
	}
	var s engineSources
	if err := json.Unmarshal(b, &s); err != nil || s.Sources == nil {
		return nil, false
	}
	if age := now.Sub(s.At); age < -time.Second || age > sourcesFresh {
		return nil, false
	}
	return s.Sources, true
}
