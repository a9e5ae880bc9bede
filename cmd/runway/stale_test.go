package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/tail"
)

// Logs that exist but were not written inside the lookback are said as
// such: "no agent data" alone read as if runway had found no logs.
func TestStaleLogsAreSaid(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	env := runway.NewEnv(func(string) string { return "" }, runway.DefaultConfig())
	env.Home = "/home/u"
	old := runway.Evaluation{Tail: tail.Stats{Roots: []tail.RootStats{
		{Files: 3, Newest: "/home/u/.codex/sessions/a.jsonl", NewestMod: now.Add(-11 * time.Hour)},
		{Files: 1, Newest: "/home/u/.claude/projects/p/b.jsonl", NewestMod: now.Add(-30 * time.Hour)},
	}}}
	got := staleLogs(env, old, now)
	for _, want := range []string{"4 found", "~/.codex/sessions/a.jsonl", "11h00m ago"} {
		if !strings.Contains(got, want) {
			t.Errorf("staleLogs = %q, want it to say %q", got, want)
		}
	}
	fresh := old
	fresh.Tail.Roots = append(fresh.Tail.Roots, tail.RootStats{Files: 1, InWindow: 1})
	if got := staleLogs(env, fresh, now); got != "" {
		t.Errorf("a root with a file inside the lookback: %q, want nothing", got)
	}
	if got := staleLogs(env, runway.Evaluation{}, now); got != "" {
		t.Errorf("no logs at all: %q, want nothing (said elsewhere)", got)
	}
}

// A log written a moment ago that could not be opened is not "not written
// in the last 6h": that read "newest 0s ago" beside it.
func TestUnreadRecentLogIsNotStale(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	env := runway.NewEnv(func(string) string { return "" }, runway.DefaultConfig())
	unread := runway.Evaluation{Tail: tail.Stats{Roots: []tail.RootStats{
		{Files: 1, Newest: "/home/u/.codex/sessions/a.jsonl", NewestMod: now.Add(-time.Second)},
	}}}
	if got := staleLogs(env, unread, now); got != "" {
		t.Errorf("staleLogs = %q, want nothing", got)
	}
}
