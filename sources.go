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
