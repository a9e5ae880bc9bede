package runway

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/quota"
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
	l := startLive(t, offlineEnv(t.TempDir()), now, nil)
	l.waitFor("the no-logs warning", func(s burn.Snapshot) bool {
		return slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "no Claude Code or Codex logs found in ") })
	})
}

// The clock stepped back after runway's newest readings were written: what
// is left is older than the latest it saw, so --check cannot tell (it said
// "lasts" on readings from before a burst). Readings written since the
// step (TestTrustClockStepsBack) leave only the warning.
func TestClockSteppedBackUnderTheNewestReadings(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	env := burningEnv(t, now, 40, 0.2) // a window that lasts: 40 → 41 % in 10 minutes
	log, err := quota.OpenLog(env.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if v, why := burn.Gate(env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }}).Snapshot); v != burn.Lasts {
		t.Fatalf("before the step: gate %v (%s), want lasts", v, why)
	}
	ahead := burn.Sample{ObservedAt: now.Add(10 * time.Minute), Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
		UsedPercent: 60, ResetsAt: now.Add(2 * time.Hour), Source: burn.SourceStatusline}
	if err := log.Append(ahead); err != nil {
		t.Fatal(err)
	}
	s := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	if v, why := burn.Gate(s); v != burn.CannotTell || !strings.Contains(why, "step back") {
		t.Errorf("newest readings ahead of the clock: gate %v (%s), want cannot tell", v, why)
	}
	// The tray's engine says the same as runway now.
	engineCannotTell(t, env, now, "step back")
	// A reading written after the step: the clock was ahead, now right.
	again := ahead
	again.ObservedAt, again.UsedPercent = now.Add(time.Second), 41.2
	if err := log.Append(again); err != nil {
		t.Fatal(err)
	}
	s = env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now.Add(2 * time.Second) }}).Snapshot
	if v, why := burn.Gate(s); v == burn.CannotTell {
		t.Errorf("a reading written since the step: gate cannot tell (%s)", why)
	}
	if findWarning(s.Warnings, "dated after now") == "" {
		t.Errorf("warnings %q, want the future sample named", s.Warnings)
	}
}

// A rollout's newest reading dated ahead of the clock (it stepped back) is
// left out of the figures: the older one says "lasts" of a window the newest
// shows used up, so the gate cannot tell, in runway now and on the tray. It
// said "lasts" until the sample log had recorded the reading.
func TestClockSteppedBackUnderARollout(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(time.Hour)
	w.codexTurn(now.Add(-time.Minute), 20)
	w.codexTurn(now.Add(90*time.Second), 100)
	env := w.env()
	s := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	if v, why := burn.Gate(s); v != burn.CannotTell || !strings.Contains(why, "session logs' newest account readings, dated 1m") {
		t.Errorf("a rollout's reading ahead of the clock: gate %v (%s), want cannot tell", v, why)
	}
	engineCannotTell(t, env, now, "step back")
	// As of an instant before it was written, it is not yet there: lasts.
	s = env.Evaluate(t.Context(), EvalOptions{At: now}).Snapshot
	if v, why := burn.Gate(s); v != burn.Lasts {
		t.Errorf("--at before the reading: gate %v (%s), want lasts", v, why)
	}
}

// engineCannotTell waits until the tray's engine at now has its gate say
// "cannot tell" for a reason naming why.
func engineCannotTell(t *testing.T, env Env, now time.Time, why string) {
	t.Helper()
	startLive(t, env, now, nil).waitFor("the engine's gate: cannot tell ("+why+")", func(s burn.Snapshot) bool {
		v, reason := burn.Gate(s)
		return v == burn.CannotTell && strings.Contains(reason, why)
	})
}
