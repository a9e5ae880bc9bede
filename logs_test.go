package runway

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/tail"
)

// Logs that exist but were not written inside the lookback are said as
// such: "no agent data" alone read as if runway had found no logs. No
// logs at all is said with where runway looked. Either is said only when
// no window has a figure.
func TestLogsWarning(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	env := NewEnv(func(string) string { return "" }, DefaultConfig())
	env.Home = "/home/u"
	env.Roots = tail.Roots{Claude: []string{"/home/u/.claude"}, Codex: []string{"/home/u/.codex"}}
	old := tail.Stats{Roots: []tail.RootStats{
		{Files: 3, Newest: "/home/u/.codex/sessions/a.jsonl", NewestMod: now.Add(-11 * time.Hour)},
		{Files: 1, Newest: "/home/u/.claude/projects/p/b.jsonl", NewestMod: now.Add(-30 * time.Hour)},
	}}
	got := env.logsWarning(old, burn.Snapshot{}, now)
	for _, want := range []string{"no session log was written in the last 6h", "4 found", "~/.codex/sessions/a.jsonl", "11h00m ago"} {
		if !strings.Contains(got, want) {
			t.Errorf("stale logs: %q, want it to say %q", got, want)
		}
	}
	if got := env.logsWarning(old, burn.Snapshot{Providers: []burn.ProviderStatus{{Provider: burn.Codex}}}, now); got != "" {
		t.Errorf("with a window's figure: %q, want nothing", got)
	}
	fresh := old
	fresh.Roots = append(fresh.Roots, tail.RootStats{Files: 1, InWindow: 1})
	if got := env.logsWarning(fresh, burn.Snapshot{}, now); got != "" {
		t.Errorf("a root with a file inside the lookback: %q, want nothing", got)
	}
	if got := env.logsWarning(tail.Stats{}, burn.Snapshot{}, now); got != "no Claude Code or Codex logs found in ~/.claude, ~/.codex" {
		t.Errorf("no logs at all: %q", got)
	}
	if !(Evaluation{}).NoLogs() || (Evaluation{Tail: old}).NoLogs() {
		t.Error("NoLogs")
	}
	// A log written a moment ago that could not be opened is not "not
	// written in the last 6h": that read "newest 0s ago" beside it.
	unread := tail.Stats{Roots: []tail.RootStats{{Files: 1, Newest: "/home/u/.codex/sessions/a.jsonl", NewestMod: now.Add(-time.Second)}}}
	if got := env.logsWarning(unread, burn.Snapshot{}, now); got != "" {
		t.Errorf("unread recent log: %q, want nothing", got)
	}
}

// The tray and watch say it too: the engine's snapshot carries the
// warning, as runway now's does.
func TestEngineSaysWhyNoFigure(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	env := NewEnv(func(string) string { return "" }, DefaultConfig())
	env.Config.Offline = true
	env.Home = dir
	env.Roots = tail.Roots{Claude: []string{dir + "/claude"}, Codex: []string{dir + "/codex"}}
	env.StateDir = dir + "/state"
	env.ClaudeCacheDir = dir + "/cache"
	l := startLive(t, env, now, nil)
	l.waitFor("the no-logs warning", func(s burn.Snapshot) bool {
		return slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "no Claude Code or Codex logs found in ") })
	})
}
