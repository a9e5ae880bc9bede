package runway

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

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
