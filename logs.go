package runway

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// The logs warnings begin so: doctor, which says them in its logs
// section, leaves them out of its warnings (IsLogsWarning).
const (
	noLogsWarning    = "no Claude Code or Codex logs found in "
	staleLogsWarning = "no session log was written in the last "
	noRootWarning    = "[roots] names a folder that does not exist: "
)

// IsLogsWarning says whether a warning is one of withLogsWarning's.
func IsLogsWarning(w string) bool {
	return strings.HasPrefix(w, noLogsWarning) || strings.HasPrefix(w, staleLogsWarning) || strings.HasPrefix(w, noRootWarning)
}

// MissingRoot says whether an absent root was named in [roots]: a typo
// there must be said; an absent discovered folder is just unused.
func (e Env) MissingRoot(r tail.RootStats) bool {
	named := e.Config.Roots.Claude
	if r.Provider == burn.Codex {
		named = e.Config.Roots.Codex
	}
	return !r.Exists && len(named) > 0
}

// withLogsWarning puts first why no window has a figure when the logs are
// the reason (the tray menu shows one warning), and names missing roots,
// which a gate counts as unread.
func (e Env) withLogsWarning(snap *burn.Snapshot, st tail.Stats, at time.Time) {
	if w := e.logsWarning(st, *snap, at); w != "" {
		snap.Warnings = append([]string{w}, snap.Warnings...)
	}
	for _, r := range st.Roots {
		if e.MissingRoot(r) {
			dir := printable.String(ShortPath(r.Dir, e.Home))
			snap.Warnings = append(snap.Warnings, fmt.Sprintf("%s%s (%s): fix it in the config file", noRootWarning, dir, r.Provider))
			// Sessions logged there would burn unseen: a gate must not say "lasts".
			snap.Unread = append(snap.Unread, fmt.Sprintf("%s, a folder [roots] names (%s)", dir, r.Provider))
		}
	}
}

// logsWarning: none found where runway looked, or none written lately.
func (e Env) logsWarning(st tail.Stats, snap burn.Snapshot, at time.Time) string {
	if len(snap.Providers) > 0 {
		return ""
	}
	if sessionFiles(st) == 0 {
		return noLogsWarning + e.lookedIn()
	}
	var newest string
	var newestMod time.Time
	for _, r := range st.Roots {
		if r.InWindow > 0 {
			return ""
		}
		if r.NewestMod.After(newestMod) {
			newest, newestMod = r.Newest, r.NewestMod
		}
	}
	lookback := time.Duration(e.Config.Lookback)
	if at.Sub(newestMod) < lookback {
		// Recent but unread: the read error already says what to do.
		return ""
	}
	return fmt.Sprintf("%s%s (lookback): %d found, the newest %s %s ago; runway shows a window once an agent writes again",
		staleLogsWarning, text.Span(lookback), sessionFiles(st), printable.String(ShortPath(newest, e.Home)), text.Span(at.Sub(newestMod)))
}

func sessionFiles(st tail.Stats) int {
	n := 0
	for _, r := range st.Roots {
		n += r.Files
	}
	return n
}

// NoLogs says that no root held a single session file.
func (ev Evaluation) NoLogs() bool { return sessionFiles(ev.Tail) == 0 }

// lookedIn is the folders runway reads session logs from, short.
func (e Env) lookedIn() string {
	var dirs []string
	for _, d := range slices.Concat(e.Roots.Claude, e.Roots.Codex) {
		dirs = append(dirs, ShortPath(d, e.Home))
	}
	return strings.Join(dirs, ", ")
}
