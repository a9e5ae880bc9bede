package runway

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dirwatch"
)

// The engine's schedule, on synctest's clock: a burst of lines costs one
// recompute, a session that moves is refreshed every ActiveRefresh, and a
// quiet history only every IdleRefresh. The folder watchers are stand-ins
// made inside the bubble (a real inotify read never counts as blocked).

// quietWatcher is a folder watcher whose events the test sends.
type quietWatcher struct {
	events chan fsnotify.Event
	errs   chan error
}

func (w *quietWatcher) Add(string) error              { return nil }
func (w *quietWatcher) Events() <-chan fsnotify.Event { return w.events }
func (w *quietWatcher) Errors() <-chan error          { return w.errs }
func (w *quietWatcher) Close() error                  { return nil }

// scheduled runs an Engine over w inside a synctest bubble with the
// engine's own default timings, counts its snapshots, and hands body the
// log folder's watcher.
func scheduled(t *testing.T, w *world, body func(logs *quietWatcher, snaps *atomic.Int64)) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var made []*quietWatcher
		begin := time.Now()
		var snaps atomic.Int64
		e := NewEngine(w.env(), EngineOptions{
			Now:        func() time.Time { return w.start.Add(time.Hour + time.Since(begin)) },
			OnSnapshot: func(burn.Snapshot) { snaps.Add(1) },
			newWatcher: func() (dirwatch.Watcher, error) {
				mu.Lock()
				defer mu.Unlock()
				q := &quietWatcher{events: make(chan fsnotify.Event), errs: make(chan error)}
				made = append(made, q)
				return q, nil
			},
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- e.Run(ctx) }()
		synctest.Wait()
		mu.Lock()
		logs := made[0] // the follower asks first; the state folder's comes after
		mu.Unlock()
		body(logs, &snaps)
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

func TestEngineBurstIsOneRecompute(t *testing.T) {
	w := newWorld(t)
	scheduled(t, w, func(logs *quietWatcher, snaps *atomic.Int64) {
		before := snaps.Load()
		at := w.start.Add(time.Hour)
		for i := range 20 { // twenty responses land at once
			w.claudeTurn(at.Add(time.Duration(i) * time.Millisecond))
			logs.events <- fsnotify.Event{Name: w.claudePath, Op: fsnotify.Write}
		}
		synctest.Wait()
		if n := snaps.Load() - before; n != 0 {
			t.Errorf("%d recomputes before the debounce ended", n)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := snaps.Load() - before; n != 1 {
			t.Errorf("a burst of 20 lines cost %d recomputes, want 1", n)
		}
	})
}

func TestEngineRefreshesAMovingSessionOnly(t *testing.T) {
	w := newWorld(t)
	w.claudeTurn(w.start.Add(time.Hour - 10*time.Second)) // a session at work
	scheduled(t, w, func(logs *quietWatcher, snaps *atomic.Int64) {
		before := snaps.Load()
		time.Sleep(time.Minute)
		synctest.Wait()
		// ActiveRefresh (5 s) while the session counts as moving: its
		// waiting share fades and the figures age with time alone.
		if n := snaps.Load() - before; n != 12 {
			t.Errorf("%d refreshes in the first minute of a moving session, want 12", n)
		}
		// Long after, nothing moves: IdleRefresh (1 min) only.
		time.Sleep(time.Hour)
		synctest.Wait()
		before = snaps.Load()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := snaps.Load() - before; n != 10 {
			t.Errorf("%d refreshes in ten quiet minutes, want 10", n)
		}
	})
}
