package runway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// TestEngineLogsCodexFailureOnce: an hour of 30-s polls against an
// app-server that keeps failing the same way (its back-off answering from
// the stored error in between, then asking again) logs the failure once,
// and once more when it fails another way.
func TestEngineLogsCodexFailureOnce(t *testing.T) {
	w := newWorld(t)
	codex, mode := fakeCodex(t, w.dir, w.codexReset, w.weekReset)
	setMode(t, mode, "garbage")
	env := w.env()
	env.Config.Offline = false
	env.Config.CodexPath = codex
	env.CodexTimeout = 10 * time.Second
	now := w.start.Add(10 * time.Minute)
	// A thread that stays active through the hour: its turn is stamped
	// later than every poll.
	w.codexTurn(now.Add(2*time.Hour), -1)
	clk := &clock{t: now}
	var logs logSink
	e := NewEngine(env, EngineOptions{Now: clk.Now, Logf: logs.logf})
	defer e.codex.Close()
	if err := e.tail.Scan(now); err != nil {
		t.Fatal(err)
	}
	poll := func(n int) {
		for range n {
			e.poll(context.Background())
			clk.Set(clk.Now().Add(30 * time.Second))
		}
	}
	poll(120)
	if n := len(logs.matching("codex app-server")); n != 1 {
		t.Fatalf("an hour of the same failure logged %d times, want once:\n%s", n, strings.Join(logs.lines, "\n"))
	}
	setMode(t, mode, "crash")
	poll(120)
	if n := len(logs.matching("codex app-server")); n != 2 {
		t.Fatalf("a second kind of failure: %d log lines, want 2:\n%s", n, strings.Join(logs.lines, "\n"))
	}
}

// TestEngineLogsUndeliveredNoticeOnce: with no notification server, a
// notice is decided again at every recompute and fails each time; the
// log says so once, and again only when the failure changes.
func TestEngineLogsUndeliveredNoticeOnce(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	env.Config.Notifications.MinInterval = 0
	var logs logSink
	failure := errors.New("org.freedesktop.Notifications was not provided by any .service files")
	e := NewEngine(env, EngineOptions{Logf: logs.logf, OnNotice: func(burn.Notice) error { return failure }})
	at := w.start.Add(time.Hour)
	resets := at.Add(2 * time.Hour)
	snap := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{
		Provider: burn.Claude, State: burn.Exhausted,
		Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: 100, ResetsAt: &resets, State: burn.Exhausted,
			Fresh: true, ObservedAt: at, Source: burn.SourceStatusline},
	}}}
	for i := range 60 { // five minutes of 5-s recomputes
		snap.At = at.Add(time.Duration(i) * 5 * time.Second)
		e.deliver(snap)
	}
	if n := len(logs.matching("notification not delivered")); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, strings.Join(logs.lines, "\n"))
	}
	failure = errors.New("the notification server went away")
	e.deliver(snap)
	if n := len(logs.matching("notification not delivered")); n != 2 {
		t.Fatalf("a new failure: %d lines, want 2", n)
	}
}

// TestEngineHoldsNoticesByInterval: two notices decided at once go out
// notifications.min_interval apart, whatever the surface; the one held back
// is decided again and goes out once the interval has passed.
func TestEngineHoldsNoticesByInterval(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	env.Config.Notifications.MinInterval = Duration(2 * time.Minute)
	var sent []string
	var now time.Duration
	e := NewEngine(env, EngineOptions{Logf: func(string, ...any) {}, OnNotice: func(n burn.Notice) error {
		sent = append(sent, fmt.Sprintf("%v %s %s", now, n.Provider, n.Kind))
		return nil
	}})
	at := w.start.Add(time.Hour)
	resets := at.Add(2 * time.Hour)
	low := func(p burn.Provider) burn.ProviderStatus {
		return burn.ProviderStatus{Provider: p, State: burn.Low, Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300,
			UsedPercent: 95, ResetsAt: &resets, State: burn.Low, Fresh: true, ObservedAt: at, Source: burn.SourceStatusline}}
	}
	snap := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{low(burn.Claude), low(burn.Codex)}}
	for _, now = range []time.Duration{0, time.Minute, 2 * time.Minute, 3 * time.Minute} {
		snap.At = at.Add(now)
		e.deliver(snap)
	}
	if want := []string{"0s claude low", "2m0s codex low"}; !slices.Equal(sent, want) {
		t.Errorf("sent %q, want %q", sent, want)
	}
}
