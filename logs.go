package runway

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// logsWarning says why no window has a figure when the session logs are
// the reason, for every surface (runway now, the statusline, the tray,
// watch): none found where runway looked, or none written inside the
// lookback ("no agent data" alone reads as if runway found no logs). ""
// when a window has a figure, or the logs are not why.
func (e Env) logsWarning(st tail.Stats, snap burn.Snapshot, at time.Time) string {
	if len(snap.Providers) > 0 {
		return ""
	}
	var files int
	var newest string
	var newestMod time.Time
	for _, r := range st.Roots {
		if r.InWindow > 0 {
			return ""
		}
		files += r.Files
		if r.NewestMod.After(newestMod) {
			newest, newestMod = r.Newest, r.NewestMod
		}
	}
	if files == 0 {
		return "no Claude Code or Codex logs found in " + e.LookedIn()
	}
	lookback := time.Duration(e.Config.Lookback)
	if at.Sub(newestMod) < lookback {
		// Written inside the lookback but not read (it could not be
		// opened): not stale, and the read error already says what to do.
		return ""
	}
	return fmt.Sprintf("no session log was written in the last %s (lookback): %d found, the newest %s %s ago; runway shows a window once an agent writes again",
		text.Span(lookback), files, printable.String(ShortPath(newest, e.Home)), text.Span(at.Sub(newestMod)))
}

// NoLogs says that no root held a single session file.
func (ev Evaluation) NoLogs() bool {
	for _, r := range ev.Tail.Roots {
		if r.Files > 0 {
			return false
		}
	}
	return true
}

// LookedIn is the folders runway reads session logs from, short.
func (e Env) LookedIn() string {
	var dirs []string
	for _, d := range append(append([]string{}, e.Roots.Claude...), e.Roots.Codex...) {
		dirs = append(dirs, ShortPath(d, e.Home))
	}
	return strings.Join(dirs, ", ")
}
