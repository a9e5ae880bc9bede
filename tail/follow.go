package tail

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentrunway/runway/internal/dirwatch"
)

// After a fallback to rescans, the followed files are checked every
// pollEvery and the folders walked every fallbackScanEvery.
const (
	pollEvery         = time.Second
	fallbackScanEvery = 10 * time.Second
)

// Follow keeps the Tailer up to date until ctx ends: it watches every
// relevant folder, rescans every RescanEvery as a safety net, and falls back
// to periodic rescans, said once, when the system drops events or runs out
// of watches. onChange is called after new lines were parsed; the caller
// debounces.
func (t *Tailer) Follow(ctx context.Context, now func() time.Time, onChange func()) error {
	// The generation before this scan: what it reads is news to a caller
	// who read the Tailer before Follow began.
	r := &followRun{t: t, ctx: ctx, now: now, onChange: onChange, gen: t.generation(), watched: map[string]bool{}}
	if err := t.Scan(now()); err != nil {
		return err
	}
	r.notify()
	if r.startWatching() {
		defer r.w.Close()
	}
	r.rescan = time.NewTicker(t.opts.RescanEvery)
	defer r.rescan.Stop()
	for r.addWatches() > 0 {
		t.Scan(now()) // lines written before a folder's watch was in place
	}
	r.startPolling()
	r.notify()
	if t.ready != nil {
		t.ready()
	}
	return r.loop()
}

// followRun is one call of Follow.
type followRun struct {
	t        *Tailer
	ctx      context.Context
	now      func() time.Time
	onChange func()
	gen      uint64

	w       dirwatch.Watcher // nil: the folders are not watched
	events  <-chan fsnotify.Event
	errs    <-chan error
	watched map[string]bool

	rescan         *time.Ticker
	poll, fullScan <-chan time.Time // after a fallback
}

// notify calls onChange when what Usage returns may have changed.
func (r *followRun) notify() {
	if g := r.t.generation(); g != r.gen {
		r.gen = g
		r.onChange()
	}
}

// startWatching makes the folder watcher; without one, Follow falls back
// to rescans. It reports whether there is one to close.
func (r *followRun) startWatching() bool {
	w, err := r.t.opts.Watcher()
	if err != nil {
		r.t.fallBack("cannot watch folders (" + err.Error() + ")")
		return false
	}
	r.w, r.events, r.errs = w, w.Events(), w.Errors()
	r.t.setFollow(Watching)
	return true
}

// addWatches watches the folders the last scan saw and no watch covers
// yet, and returns how many it added.
func (r *followRun) addWatches() (added int) {
	if r.w == nil {
		return 0
	}
	for _, dir := range r.t.watchDirs() {
		if r.watched[dir] || r.t.fellBack() {
			continue
		}
		if err := r.t.addWatch(r.w, dir); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				r.t.fallBack("the system's watch limit was reached (" + err.Error() + ")")
			}
			continue // a folder that vanished is seen by the next scan
		}
		r.watched[dir] = true
		added++
	}
	return added
}

// startPolling starts the timers of the fallback, once it fell back.
func (r *followRun) startPolling() {
	if r.poll != nil || !r.t.fellBack() {
		return
	}
	p := time.NewTicker(pollEvery)
	s := time.NewTicker(min(r.t.opts.RescanEvery, fallbackScanEvery))
	r.poll, r.fullScan = p.C, s.C
	context.AfterFunc(r.ctx, func() { p.Stop(); s.Stop() })
}

// scan walks the folders and watches new ones; lines written to a new
// folder before its watch was in place are read by a second scan.
func (r *followRun) scan() {
	r.t.Scan(r.now())
	for r.addWatches() > 0 {
		r.t.Scan(r.now())
	}
	r.startPolling()
	r.notify()
}

// loop reads what the watcher and the timers say changed, until ctx ends.
func (r *followRun) loop() error {
	for {
		select {
		case <-r.ctx.Done():
			return nil
		case ev, ok := <-r.events:
			r.onEvent(ev, ok)
		case err, ok := <-r.errs:
			r.onError(err, ok)
		case <-r.rescan.C:
			r.scan()
		case <-r.fullScan:
			r.t.Scan(r.now())
			r.notify()
		case <-r.poll:
			r.t.pollFiles(r.now())
			r.notify()
		}
	}
}

// onEvent reads what a watch event, and those queued behind it, changed;
// a closed watcher (ok false) means falling back to rescans.
func (r *followRun) onEvent(ev fsnotify.Event, ok bool) {
	if !ok {
		r.events = nil
		r.t.fallBack("the folder watcher stopped")
		r.startPolling()
		return
	}
	pending := map[string]fsnotify.Op{ev.Name: ev.Op}
	r.drain(pending)
	if r.t.handle(pending, r.now()) {
		r.scan()
	}
	r.notify()
}

// drain adds the events already queued to pending, one batch for a burst.
func (r *followRun) drain(pending map[string]fsnotify.Op) {
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				return
			}
			pending[ev.Name] |= ev.Op
		default:
			return
		}
	}
}

// onError takes a watcher error: dropped events mean falling back to
// rescans, and a scan for what was dropped.
func (r *followRun) onError(err error, ok bool) {
	if !ok {
		r.errs = nil
		return
	}
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		r.t.fallBack("the system dropped file events (queue overflow)")
		r.scan()
	}
}

// handle applies a batch of watch events; it reports whether a folder
// appeared or vanished, which needs a scan.
func (t *Tailer) handle(pending map[string]fsnotify.Op, now time.Time) (rescan bool) {
	t.mu.Lock()
	rescan = t.behindLocked(now) // the clock went back: Scan reads again
	t.mu.Unlock()
	for _, p := range slices.Sorted(maps.Keys(pending)) {
		op := pending[p]
		if t.isDir(p) {
			if op.Has(fsnotify.Remove) || op.Has(fsnotify.Rename) {
				rescan = true
			}
			continue
		}
		if op.Has(fsnotify.Create) {
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				rescan = rescan || t.wantsDir(p)
				continue
			}
		}
		t.refreshPath(p, now)
	}
	return rescan
}

// wantsDir says whether a new folder may hold session files: anything
// below a session folder, but in a root only projects/, sessions/ and
// archived_sessions/ (the agents keep much else there).
func (t *Tailer) wantsDir(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.dirs[filepath.Dir(path)]
	if !ok || r.kind != dirRoot {
		return true
	}
	switch filepath.Base(path) {
	case "projects", "sessions", "archived_sessions":
		return true
	}
	return false
}

func (t *Tailer) isDir(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.dirs[path]
	return ok
}

// pollFiles checks every followed file for new lines, without a walk.
func (t *Tailer) pollFiles(now time.Time) {
	t.mu.Lock()
	paths := slices.Sorted(maps.Keys(t.files))
	t.mu.Unlock()
	for _, p := range paths {
		t.refreshPath(p, now)
	}
}

// watchDirs lists the folders the last scan saw.
func (t *Tailer) watchDirs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.dirs))
}

// fallBack switches to periodic rescans; the first reason is kept.
func (t *Tailer) fallBack(why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fallback == "" {
		t.fallback = "following by periodic rescans: " + why
		t.follow = FollowState("rescan fallback: " + why)
		t.gen++
	}
}

func (t *Tailer) fellBack() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fallback != ""
}

func (t *Tailer) setFollow(s FollowState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.follow = s
}

// FollowState says how Follow keeps up with the files: NotFollowing,
// Watching, or, after falling back to periodic rescans, "rescan fallback:
// <why>".
type FollowState string

const (
	NotFollowing FollowState = ""         // Follow has not started
	Watching     FollowState = "watching" // the folders are watched
)
