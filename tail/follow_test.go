package tail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/fsnotify/fsnotify"
)

// follower drives a running Follow through file changes and checks after
// every step that what it holds equals a cold read of the final files (as
// scans alone do in TestIndexEqualsColdRead).
type follower struct {
	t       *testing.T
	tr      *tree
	tl      *Tailer
	changed chan struct{}
	stop    func()
}

func startFollower(t *testing.T, tr *tree) *follower {
	fo := &follower{t: t, tr: tr, changed: make(chan struct{}, 1)}
	// A long safety-net period: every change below must come from the
	// watch events, not from a rescan.
	fo.tl = New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, RescanEvery: time.Hour})
	ready := make(chan struct{})
	fo.tl.ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- fo.tl.Follow(ctx, time.Now, func() {
			select {
			case fo.changed <- struct{}{}:
			default:
			}
		})
	}()
	fo.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
	}
	t.Cleanup(fo.stop)
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Follow returned %v", err)
	}
	if s := fo.tl.Stats().Follow; s != "watching" {
		t.Fatalf("follow mode %q", s)
	}
	return fo
}

// check waits until the live result equals a cold read of the files.
func (fo *follower) check(step string) {
	fo.t.Helper()
	// Only a failure waits this long: a passing step returns on the first
	// change notification that makes the results equal.
	deadline := time.After(20 * time.Second)
	for {
		cold := New(Options{Roots: fo.tr.roots(), CacheReadWeight: 0.1})
		cold.Scan(time.Now())
		want := cold.Usage(time.Time{})
		got := fo.tl.Usage(time.Time{})
		if reflect.DeepEqual(got, want) {
			return
		}
		select {
		case <-fo.changed:
		case <-deadline:
			fo.t.Fatalf("%s: live never matched a cold read:\n%s", step, diffUsage(got, want))
		}
	}
}

func TestFollowLiveEqualsCold(t *testing.T) {
	tr := newTree(t)
	a := tr.claudeFile(sid)
	tr.write(a, claudeUser(0)+claudeAssistant(1, "msg_1", 1, "null"))
	const id = "01a22fc0-2222-7000-8000-000000000001"
	r := tr.rollout("01", id)
	tr.write(r, codexMeta(0, id)+codexCount(5, 1000, 1))
	fo := startFollower(t, tr)
	fo.check("start")

	// A line split across writes: the partial line waits.
	final := claudeAssistant(3, "msg_1", 300, "tool_use")
	tr.append(a, final[:len(final)/2])
	fo.check("half a line")
	tr.append(a, final[len(final)/2:])
	fo.check("the rest of the line")
	if n := len(fo.tl.Usage(time.Time{}).Events); n != 2 {
		t.Fatalf("%d events after the split line", n)
	}

	// A burst of 1,000 appends, one write each.
	f, err := os.OpenFile(r, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, err := f.WriteString(codexCount(10+i, int64(2000+i*500), float64(i)/20)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	fo.check("burst")
	if n := len(fo.tl.Usage(time.Time{}).Events); n != 1002 {
		t.Fatalf("%d events after the burst", n)
	}

	// Truncated and written again, shorter.
	tr.write(a, claudeUser(10)+claudeAssistant(11, "msg_2", 7, "end_turn"))
	fo.check("truncate shorter")
	// Truncated and written again, longer than the old offset.
	tr.write(a, claudeUser(20)+claudeAssistant(21, "msg_3", 9, "null")+claudeAssistant(22, "msg_3", 90, "end_turn")+claudeUser(23)+claudeUser(24))
	fo.check("truncate longer")

	// Replaced (a new inode) with content of the same size.
	tmp := r + ".tmp"
	old, _ := os.ReadFile(r)
	tr.write(tmp, strings.Replace(string(old), `"used_percent":0.00`, `"used_percent":9.99`, 1))
	if err := os.Rename(tmp, r); err != nil {
		t.Fatal(err)
	}
	fo.check("replace")

	// A new date folder (Codex makes one each day) and a new
	// project with a subagent, created in one go.
	const id2 = "01a22fc0-2222-7000-8000-000000000002"
	tr.mkdir(tr.codex, "sessions", "2026", "12", "02")
	r2 := tr.rollout("02", id2)
	tr.write(r2, codexMeta(100, id2)+codexCount(101, 500, 2))
	sub := filepath.Join(tr.mkdir(tr.claude, "projects", "-home-ann-src-other", sid, "subagents"), "agent-b7.jsonl")
	tr.write(sub, claudeAssistant(102, "msg_9", 50, "end_turn"))
	fo.check("new folders")
	tr.append(r2, codexCount(103, 900, 3))
	fo.check("append in the new folder")

	// Deleted: its events go with it.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	fo.check("delete")
	for _, e := range fo.tl.Usage(time.Time{}).Events {
		if strings.HasPrefix(e.Key, "msg_3") {
			t.Fatalf("deleted file's event %+v", e)
		}
	}
}

// fakeWatcher stands in for fsnotify inside a synctest bubble.
type fakeWatcher struct {
	events chan fsnotify.Event
	errs   chan error
	mu     sync.Mutex
	added  []string
}

func newFakeWatcher() *fakeWatcher {
	return &fakeWatcher{events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (w *fakeWatcher) Add(dir string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.added = append(w.added, dir)
	return nil
}
func (w *fakeWatcher) Events() <-chan fsnotify.Event { return w.events }
func (w *fakeWatcher) Errors() <-chan error          { return w.errs }
func (w *fakeWatcher) Close() error                  { return nil }

// runFake runs Follow in a synctest bubble with a fake watcher (made
// inside the bubble, so blocking on its channels is durable); before, if
// set, runs before Follow starts.
func runFake(t *testing.T, tr *tree, addWatch func(dirwatch.Watcher, string) error, before func(*Tailer), body func(tl *Tailer, w *fakeWatcher, changes *atomic.Int64)) {
	synctest.Test(t, func(t *testing.T) {
		w := newFakeWatcher()
		tl := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, RescanEvery: time.Hour,
			Watcher: func() (dirwatch.Watcher, error) { return w, nil }})
		if addWatch != nil {
			tl.addWatch = addWatch
		}
		if before != nil {
			before(tl)
		}
		ctx, cancel := context.WithCancel(t.Context())
		var changes atomic.Int64
		done := make(chan error)
		go func() { done <- tl.Follow(ctx, time.Now, func() { changes.Add(1) }) }()
		synctest.Wait()
		body(tl, w, &changes)
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// At the watch limit Follow says so once and keeps up by polling.
func TestFollowWatchLimitFallsBack(t *testing.T) {
	tr := newTree(t)
	const id = "01a22fc0-3333-7000-8000-000000000001"
	r := tr.rollout("01", id)
	tr.write(r, codexMeta(0, id)+codexCount(1, 1000, 1))
	limit := func(_ dirwatch.Watcher, dir string) error {
		return fmt.Errorf("fsnotify: add %s: %w", dir, syscall.ENOSPC)
	}
	runFake(t, tr, limit, nil, func(tl *Tailer, _ *fakeWatcher, changes *atomic.Int64) {
		if s := string(tl.Stats().Follow); !strings.HasPrefix(s, "rescan fallback: the system's watch limit") {
			t.Errorf("follow mode %q", s)
		}
		tr.append(r, codexCount(2, 2000, 2))
		before := changes.Load()
		time.Sleep(pollEvery)
		synctest.Wait()
		if n := changes.Load(); n != before+1 {
			t.Errorf("%d changes after a poll, want %d", n, before+1)
		}
		if n := len(tl.Usage(time.Time{}).Events); n != 2 {
			t.Errorf("%d events after polling", n)
		}
		// A new file is found by the fallback's full scan.
		tr.mkdir(tr.codex, "sessions", "2026", "12", "02")
		tr.write(tr.rollout("02", "01a22fc0-3333-7000-8000-000000000002"), codexMeta(5, "01a22fc0-3333-7000-8000-000000000002")+codexCount(6, 10, 1))
		time.Sleep(fallbackScanEvery)
		synctest.Wait()
		u := tl.Usage(time.Time{})
		if len(u.Events) != 3 {
			t.Errorf("%d events after the fallback scan", len(u.Events))
		}
		said := 0
		for _, w := range tl.Stats().Warnings {
			if strings.Contains(w, "watch limit") {
				said++
			}
		}
		if said != 1 {
			t.Errorf("warnings %q: the fallback must be said once", tl.Stats().Warnings)
		}
		if !strings.HasPrefix(string(tl.Stats().Follow), "rescan fallback: ") {
			t.Errorf("follow %q", tl.Stats().Follow)
		}
	})
}

// An overflow of the event queue falls back to rescans and rescans at once.
func TestFollowOverflowFallsBack(t *testing.T) {
	tr := newTree(t)
	const id = "01a22fc0-4444-7000-8000-000000000001"
	r := tr.rollout("01", id)
	tr.write(r, codexMeta(0, id)+codexCount(1, 1000, 1))
	runFake(t, tr, nil, nil, func(tl *Tailer, w *fakeWatcher, changes *atomic.Int64) {
		if s := tl.Stats().Follow; s != "watching" {
			t.Errorf("follow mode %q", s)
		}
		w.mu.Lock()
		if len(w.added) < 5 {
			t.Errorf("watched %v", w.added)
		}
		w.mu.Unlock()
		tr.append(r, codexCount(2, 2000, 2))
		w.errs <- fsnotify.ErrEventOverflow
		synctest.Wait()
		if s := string(tl.Stats().Follow); !strings.Contains(s, "overflow") {
			t.Errorf("follow mode %q", s)
		}
		if n := len(tl.Usage(time.Time{}).Events); n != 2 {
			t.Errorf("%d events after the overflow rescan", n)
		}
		// A write event still reads the file.
		tr.append(r, codexCount(3, 3000, 3))
		w.events <- fsnotify.Event{Name: r, Op: fsnotify.Write}
		synctest.Wait()
		if n := len(tl.Usage(time.Time{}).Events); n != 3 {
			t.Errorf("%d events after a write event", n)
		}
	})
}

// The safety-net rescan finds what no event announced.
func TestFollowSafetyNetRescan(t *testing.T) {
	tr := newTree(t)
	runFake(t, tr, nil, nil, func(tl *Tailer, _ *fakeWatcher, changes *atomic.Int64) {
		tr.write(tr.claudeFile("quiet"), claudeUser(0)+claudeAssistant(1, "msg_q", 10, "end_turn"))
		synctest.Wait()
		if n := len(tl.Usage(time.Time{}).Events); n != 0 {
			t.Fatalf("%d events before any event or rescan", n)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := len(tl.Usage(time.Time{}).Events); n != 1 || changes.Load() != 1 {
			t.Errorf("%d events, %d changes after the rescan", n, changes.Load())
		}
	})
}

// A line written after the caller read the Tailer and before Follow's
// first scan is announced: the engine reads the logs, then starts
// Follow, and a turn written in between was read by that scan and never
// announced (under load the live view missed it for good).
func TestFollowAnnouncesWhatItsFirstScanReads(t *testing.T) {
	tr := newTree(t)
	before := func(tl *Tailer) {
		if err := tl.Scan(time.Now()); err != nil { // the caller's own read
			t.Fatal(err)
		}
		tr.write(tr.claudeFile("between"), claudeUser(0)+claudeAssistant(1, "msg_b", 10, "end_turn"))
	}
	runFake(t, tr, nil, before, func(tl *Tailer, _ *fakeWatcher, changes *atomic.Int64) {
		if n := len(tl.Usage(time.Time{}).Events); n != 1 || changes.Load() == 0 {
			t.Errorf("%d events read, %d changes announced: the line written before Follow began was not announced", n, changes.Load())
		}
	})
}
