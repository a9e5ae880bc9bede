package tail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher is the part of fsnotify.Watcher Follow uses, so a test can stand
// in for it (a watch limit, an overflow) without touching the system.
type watcher interface {
	Add(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

type fsWatcher struct{ w *fsnotify.Watcher }

func newFSWatcher() (watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsWatcher{w}, nil
}

func (f fsWatcher) Add(dir string) error          { return f.w.Add(dir) }
func (f fsWatcher) Events() <-chan fsnotify.Event { return f.w.Events }
func (f fsWatcher) Errors() <-chan error          { return f.w.Errors }
func (f fsWatcher) Close() error                  { return f.w.Close() }

// pollEvery is how often, after falling back to rescans, the files already
// followed are checked for new lines; fallbackScanEvery is how often the
// folders are walked for new files then.
const (
	pollEvery         = time.Second
	fallbackScanEvery = 10 * time.Second
)

// Follow keeps the Tailer up to date until ctx ends: it watches every
// relevant folder (adding new ones as they appear), rescans every
// RescanEvery as a safety net, and falls back to periodic rescans, said
// once in the warnings, when the system drops events or runs out of
// watches. onChange is called after new lines were parsed; the caller
// debounces. now is the clock.
func (t *Tailer) Follow(ctx context.Context, now func() time.Time, onChange func()) error {
	if err := t.Scan(now()); err != nil {
		return err
	}
	gen := t.generation()
	notify := func() {
		if g := t.generation(); g != gen {
			gen = g
			onChange()
		}
	}
	notify()

	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := t.newWatcher()
	if err != nil {
		t.fallBack("cannot watch folders (" + err.Error() + ")")
	} else {
		defer w.Close()
		events, errs = w.Events(), w.Errors()
		t.setFollow("watching")
	}
	watched := map[string]bool{}
	addWatches := func() (added int) {
		if w == nil {
			return 0
		}
		for _, dir := range t.watchDirs() {
			if watched[dir] || t.fellBack() {
				continue
			}
			if err := t.addWatch(w, dir); err != nil {
				if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
					t.fallBack("the system's watch limit was reached (" + err.Error() + ")")
				}
				continue // a folder that vanished is seen by the next scan
			}
			watched[dir] = true
			added++
		}
		return added
	}
	rescan := time.NewTicker(t.opts.RescanEvery)
	defer rescan.Stop()
	var poll <-chan time.Time
	var fullScan <-chan time.Time
	startPolling := func() {
		if poll != nil || !t.fellBack() {
			return
		}
		p := time.NewTicker(pollEvery)
		s := time.NewTicker(min(t.opts.RescanEvery, fallbackScanEvery))
		poll, fullScan = p.C, s.C
		context.AfterFunc(ctx, func() { p.Stop(); s.Stop() })
	}
	// scan walks the folders and watches new ones; lines written to a new
	// folder before its watch was in place are read by a second scan.
	scan := func() {
		t.Scan(now())
		for addWatches() > 0 {
			// Folders made while the walk ran may hold new lines and new
			// folders of their own, made before their watch was in place.
			t.Scan(now())
		}
		startPolling()
		notify()
	}
	for addWatches() > 0 {
		t.Scan(now())
	}
	startPolling()
	notify()
	if t.ready != nil {
		t.ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				t.fallBack("the folder watcher stopped")
				startPolling()
				continue
			}
			pending := map[string]fsnotify.Op{ev.Name: ev.Op}
		drain:
			for {
				select {
				case ev, ok := <-events:
					if !ok {
						break drain
					}
					pending[ev.Name] |= ev.Op
				default:
					break drain
				}
			}
			if t.handle(pending, now()) {
				scan()
			}
			notify()
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.fallBack("the system dropped file events (queue overflow)")
				scan()
			}
		case <-rescan.C:
			scan()
		case <-fullScan:
			t.Scan(now())
			notify()
		case <-poll:
			t.pollFiles(now())
			notify()
		}
	}
}

// handle applies a batch of watch events; it reports whether a folder
// appeared or vanished, which needs a scan.
func (t *Tailer) handle(pending map[string]fsnotify.Op, now time.Time) (rescan bool) {
	t.mu.Lock()
	rescan = t.behindLocked(now) // the clock went back: Scan reads again
	t.mu.Unlock()
	paths := make([]string, 0, len(pending))
	for p := range pending {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
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
	paths := make([]string, 0, len(t.files))
	for p := range t.files {
		paths = append(paths, p)
	}
	t.mu.Unlock()
	slices.Sort(paths)
	for _, p := range paths {
		t.refreshPath(p, now)
	}
}

// watchDirs lists the folders the last scan saw.
func (t *Tailer) watchDirs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	dirs := make([]string, 0, len(t.dirs))
	for d := range t.dirs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// fallBack switches to periodic rescans; the first reason is kept.
func (t *Tailer) fallBack(why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fallback == "" {
		t.fallback = "following by periodic rescans: " + why
		t.follow = "rescan fallback: " + why
		t.gen++
	}
}

func (t *Tailer) fellBack() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fallback != ""
}

func (t *Tailer) setFollow(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.follow = s
}
