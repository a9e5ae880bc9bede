// Package tail finds the session logs of Claude Code and Codex, follows them
// as they grow and turns their lines into deduplicated, weighted usage
// events, per-session activity and the account samples Codex logs carry.
//
// Each file keeps its own parsed events and Usage merges them (docs/formats.md),
// so a live result equals a cold read of the same files.
package tail

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/agentrunway/runway/internal/printable"
)

// Roots are the folders tail looks in.
type Roots struct {
	Claude []string // Claude config dirs (each may hold projects/)
	Codex  []string // Codex homes (each may hold sessions/ and archived_sessions/)
}

// DefaultRoots returns the roots of docs/formats.md, "Where the logs are".
func DefaultRoots(getenv func(string) string, home string) Roots {
	var r Roots
	expand := func(p string) string {
		p = strings.TrimSpace(p)
		if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = filepath.Join(home, p[1:])
		}
		if p == "" {
			return ""
		}
		return filepath.Clean(p)
	}
	if v := getenv("CLAUDE_CONFIG_DIR"); strings.TrimSpace(v) != "" {
		for _, p := range strings.Split(v, ",") {
			r.Claude = appendNew(r.Claude, expand(p))
		}
	} else if home != "" {
		r.Claude = appendNew(r.Claude, filepath.Join(home, ".claude"))
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		r.Claude = appendNew(r.Claude, filepath.Join(expand(x), "claude"))
	} else if home != "" {
		r.Claude = appendNew(r.Claude, filepath.Join(home, ".config", "claude"))
	}
	if v := getenv("CODEX_HOME"); strings.TrimSpace(v) != "" {
		r.Codex = appendNew(r.Codex, expand(v))
	} else if home != "" {
		r.Codex = appendNew(r.Codex, filepath.Join(home, ".codex"))
	}
	return r
}

func appendNew(list []string, p string) []string {
	if p == "" || p == "." || slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

// Options configure a Tailer.
type Options struct {
	Roots Roots
	// CacheReadWeight is the weight of a cache-read token; the caller sets it.
	CacheReadWeight float64
	// Lookback bounds the history read: older files are not opened, older
	// events are dropped. Zero means no bound.
	Lookback time.Duration
	// Until, when set, ignores lines stamped after it (runway now --at).
	Until time.Time
	// MaxLineBytes: longer lines are skipped with a warning (default 64 MiB).
	MaxLineBytes int
	// RescanEvery is Follow's safety-net rescan period (default 1 min).
	RescanEvery time.Duration
	// WindowStep rounds the lookback's start down to a multiple of it, so
	// runs within one step read each file from the same line and an index
	// saved by one is what a cold read by the next would give.
	WindowStep time.Duration
	// Account names the login of a Claude root ("" when unknown): Usage
	// stamps it on that root's events, activity and samples.
	Account func(root string) string
	// Watcher makes Follow's folder watcher; nil is dirwatch.New.
	Watcher func() (dirwatch.Watcher, error)
}

// defaultMaxLineBytes is the longest line parsed when Options do not say.
const defaultMaxLineBytes = 64 << 20

// Usage is what the followed files say, merged across files.
type Usage struct {
	Events   []burn.Event
	Samples  []burn.Sample
	Activity []burn.Activity
	Warnings []string
	// Unread names what may hold usage inside the window and could not be
	// read: a figure computed without it may be rosier than the truth.
	Unread []string
}

// Tailer follows the session files under its roots. It is safe for
// concurrent use.
type Tailer struct {
	opts Options

	mu           sync.Mutex
	files        map[string]*file
	roots        []RootStats
	dirs         map[string]root // every folder seen by the last scan, for watching
	warnings     []string        // from the last discovery
	problems     []pathProblem   // from the last discovery
	bytesRead    int64
	bytesChecked int64       // the part of bytesRead only checksummed
	gen          uint64      // bumped whenever what Usage returns may have changed
	follow       FollowState // how Follow is keeping up, for Stats
	fallback     string      // why Follow fell back to rescans; "" while watching
	// pruned is the latest window start the files were pruned to: a clock
	// set back before it needs the files read again.
	pruned   time.Time
	indexGen uint64    // gen when the index was restored
	statWall time.Time // the wall clock before the files' latest stats (readCheck)

	// Seams for tests.
	addWatch func(w dirwatch.Watcher, dir string) error
	ready    func()           // called once Follow watches and has scanned
	wall     func() time.Time // the clock ctimes are compared with (readCheck)
}

// New returns a Tailer; nothing is read before Scan.
func New(opts Options) *Tailer {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = defaultMaxLineBytes
	}
	if opts.RescanEvery <= 0 {
		opts.RescanEvery = time.Minute
	}
	if math.IsNaN(opts.CacheReadWeight) || math.IsInf(opts.CacheReadWeight, 0) || opts.CacheReadWeight < 0 {
		opts.CacheReadWeight = burn.DefaultCacheReadWeight
	}
	if opts.Lookback < 0 {
		opts.Lookback = 0
	}
	if opts.Watcher == nil {
		opts.Watcher = dirwatch.New
	}
	return &Tailer{
		opts:     opts,
		files:    map[string]*file{},
		dirs:     map[string]root{},
		addWatch: func(w dirwatch.Watcher, dir string) error { return w.Add(dir) },
		wall:     time.Now,
	}
}

// windowStart is where the lookback begins as of now; zero when unbounded.
func (t *Tailer) windowStart(now time.Time) time.Time {
	if t.opts.Lookback == 0 {
		return time.Time{}
	}
	from := now.Add(-t.opts.Lookback)
	if t.opts.WindowStep > 0 {
		from = from.Truncate(t.opts.WindowStep)
	}
	return from
}

// Scan discovers files and reads what is new in each: the first time a
// file is seen, only its part inside [now−Lookback, Until]; afterwards the
// complete lines appended since. A file that shrank or was replaced is
// read again; a vanished one is dropped.
func (t *Tailer) Scan(now time.Time) error {
	t.mu.Lock()
	t.statWall = t.wall()
	t.mu.Unlock()
	d := discover(t.opts.Roots)
	t.mu.Lock()
	from := t.startScanLocked(now)
	t.mu.Unlock()
	// The lock is held per file: a rescan of a big tree must not keep
	// Usage, Stats and event-driven reads waiting.
	for path, c := range d.files {
		t.mu.Lock()
		t.refreshLocked(path, c, from, true)
		t.mu.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endScanLocked(d, from)
	return nil
}

// startScanLocked returns the window's start as of now; when the clock
// went back past what was pruned, the files are dropped to be read again.
func (t *Tailer) startScanLocked(now time.Time) time.Time {
	if t.behindLocked(now) {
		clear(t.files)
		t.pruned = time.Time{}
		t.gen++
	}
	return t.windowStart(now)
}

// endScanLocked takes what the walk found: vanished files are dropped,
// what is older than from is pruned.
func (t *Tailer) endScanLocked(d *discovery, from time.Time) {
	t.dirs, t.roots, t.warnings, t.problems = d.dirs, d.roots, d.warnings, d.problems
	for path, f := range t.files {
		c, ok := d.files[path]
		if !ok {
			delete(t.files, path)
			t.gen++
			continue
		}
		f.root = c.root // of the last root naming it, when named twice
	}
	t.pruneLocked(from)
	for _, f := range t.files {
		if f.opened && f.root < len(t.roots) {
			t.roots[f.root].InWindow++
		}
	}
}

// refreshPath re-reads one path after a watch event.
func (t *Tailer) refreshPath(path string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.candidateLocked(path)
	if !ok {
		return
	}
	t.statWall = t.wall()
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		if _, tracked := t.files[path]; tracked {
			delete(t.files, path)
			t.gen++
		}
		return
	}
	c.info = info
	t.refreshLocked(path, c, t.windowStart(now), false)
}

// candidateLocked says whether path is a session file under a known folder.
func (t *Tailer) candidateLocked(path string) (candidate, bool) {
	if f, ok := t.files[path]; ok {
		return candidate{provider: f.provider, root: f.root}, true
	}
	r, ok := t.dirs[filepath.Dir(path)]
	if !ok || !r.wants(path) {
		return candidate{}, false
	}
	return candidate{provider: r.provider, root: r.index}, true
}

// refreshLocked brings one file up to date. With verify (a scan), a
// followed file written to since its bytes were last checksummed is
// checksummed again: a rewrite in place that ends as the file did passes
// the marks an appended read compares.
func (t *Tailer) refreshLocked(path string, c candidate, from time.Time, verify bool) {
	f := t.files[path]
	if f != nil && f.restored {
		f.restored = false
		if t.trustLocked(f, c, from) {
			f.verified, verify = f.check.ctimeMark, false
		} else {
			f = t.dropLocked(path)
		}
	}
	if f != nil && (!sameFile(f.info, c.info) || c.info.Size() < f.offset) {
		f = t.dropLocked(path) // replaced or truncated
	}
	if f != nil && verify && !t.stillReadLocked(f, c) {
		f = t.dropLocked(path) // rewritten in place
	}
	fresh := f == nil
	if fresh {
		if !from.IsZero() && c.info.ModTime().Before(from) {
			return // untouched inside the lookback: not opened
		}
		f = newFile(path, c)
		t.files[path] = f
	}
	f.info = c.info
	if c.info.Size() == f.offset && f.opened && c.info.ModTime().Equal(f.readMod) {
		return
	}
	n, changed, rewritten := f.read(t.opts, from)
	t.bytesRead += n
	if rewritten {
		// Rewritten in place: read it again from its start.
		f, fresh = newFile(path, c), true
		t.files[path] = f
		n, _, _ = f.read(t.opts, from)
		t.bytesRead += n
		changed = true
	}
	f.check.stated(c.info, t.statWall)
	if fresh {
		f.verified = f.check.ctimeMark
	}
	if changed {
		t.gen++
	}
}

// stillReadLocked reports whether f's read part is still the bytes its
// state came from: checksummed again unless untouched since it last was.
func (t *Tailer) stillReadLocked(f *file, c candidate) bool {
	if !f.opened || f.verified.unchanged(c.info) {
		return true
	}
	if !t.sameBytesLocked(f, c, f.cold.from, true) {
		return false
	}
	f.verified.stated(c.info, t.statWall)
	return true
}

// dropLocked forgets a file: what it said is gone.
func (t *Tailer) dropLocked(path string) *file {
	delete(t.files, path)
	t.gen++
	return nil
}

// pruneLocked drops events and samples older than the lookback.
func (t *Tailer) pruneLocked(from time.Time) {
	if from.IsZero() {
		return
	}
	for _, f := range t.files {
		n := f.log.held() + len(f.samples)
		f.prune(from)
		if f.log.held()+len(f.samples) != n {
			f.dropped = true
			t.gen++
		}
	}
	if from.After(t.pruned) {
		t.pruned = from
	}
}

// behindLocked reports whether now's window starts before what was pruned.
func (t *Tailer) behindLocked(now time.Time) bool {
	from := t.windowStart(now)
	return !from.IsZero() && from.Before(t.pruned)
}

// Usage returns the deduplicated events with At ≥ since (and ≤ Until),
// the account samples, per-session activity and warnings.
func (t *Tailer) Usage(since time.Time) Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := func(at time.Time) bool {
		return !at.Before(since) && (t.opts.Until.IsZero() || !at.After(t.opts.Until))
	}
	// In path order: where files tie, the first wins, as in a cold read.
	files := make([]*file, 0, len(t.files))
	for _, p := range slices.Sorted(maps.Keys(t.files)) {
		files = append(files, t.files[p])
	}
	login := t.loginsLocked()
	samples := mergeSamples(files, in, login)
	return Usage{
		Events:   mergeEvents(files, since, in, login),
		Samples:  samples,
		Activity: latestActivity(files, in, login),
		Warnings: t.warningsLocked(),
		Unread:   append(t.unreadLocked(), damagedNewest(files, samples, in)...),
	}
}

// damagedNewest names a provider whose newest account reading was damaged:
// the older one is not where the window stands now.
func damagedNewest(files []*file, samples []burn.Sample, in func(time.Time) bool) []string {
	var out []string
	for _, f := range files {
		at := f.damagedAt
		if at.IsZero() || !in(at) || slices.ContainsFunc(samples, func(s burn.Sample) bool {
			return s.Provider == f.provider && s.ObservedAt.After(at)
		}) {
			continue
		}
		out = append(out, fmt.Sprintf("the newest %s account reading, in %s (a used percent outside 0–%d)",
			f.provider, printable.String(f.path), burn.MaxUsedPercent))
	}
	return out
}

// loginsLocked is the login of a file's root (Options.Account), asked once
// per root; "" for a file of no known login.
func (t *Tailer) loginsLocked() func(*file) string {
	logins := map[int]string{}
	return func(f *file) string {
		if t.opts.Account == nil || f.provider != burn.Claude || f.root >= len(t.roots) {
			return ""
		}
		a, ok := logins[f.root]
		if !ok {
			a = t.opts.Account(t.roots[f.root].Dir)
			logins[f.root] = a
		}
		return a
	}
}

// mergeEvents merges each format's events across files by its dedupe
// rules, sorted by time; each event names its file's login.
func mergeEvents(files []*file, since time.Time, in func(time.Time) bool, login func(*file) string) []burn.Event {
	logs, logins := map[burn.Provider][]format{}, map[burn.Provider][]string{}
	for _, f := range files {
		logs[f.provider] = append(logs[f.provider], f.log)
		logins[f.provider] = append(logins[f.provider], login(f))
	}
	var evs []burn.Event
	for p, l := range logs {
		if merged := formats[p].merge(l, logins[p], since, in); evs == nil {
			evs = merged
		} else {
			evs = append(evs, merged...)
		}
	}
	if len(evs) == 0 {
		return nil
	}
	burn.SortEvents(evs)
	endFinishedAgents(evs)
	return evs
}

// endFinishedAgents ends a subagent's turn at its last response once its
// session's main thread responded after it: the parent has its result,
// even when that response was cut off inside a tool call. evs are sorted.
func endFinishedAgents(evs []burn.Event) {
	type thread struct {
		provider       burn.Provider
		session, agent string
	}
	main := map[thread]time.Time{} // newest main-thread response
	last := map[thread]int{}       // a subagent's last response
	for i, e := range evs {
		if e.Agent == "" {
			main[thread{e.Provider, e.Session, ""}] = e.At
		} else {
			last[thread{e.Provider, e.Session, e.Agent}] = i
		}
	}
	for k, i := range last {
		if at, ok := main[thread{k.provider, k.session, ""}]; ok && at.After(evs[i].At) {
			evs[i].EndsTurn = true
		}
	}
}

// mergeSamples is every file's samples stamped in, each once, sorted by
// time; a sample that names no login takes its file's.
func mergeSamples(files []*file, in func(time.Time) bool, login func(*file) string) []burn.Sample {
	n := 0
	for _, f := range files {
		n += len(f.samples)
	}
	set := make(map[burn.Sample]bool, n)
	for _, f := range files {
		for _, s := range f.samples {
			if in(s.ObservedAt) {
				if s.Account == "" {
					s.Account = login(f)
				}
				set[s] = true
			}
		}
	}
	if len(set) == 0 {
		return nil
	}
	samples := slices.Collect(maps.Keys(set))
	slices.SortFunc(samples, func(a, b burn.Sample) int {
		return cmp.Or(a.ObservedAt.Compare(b.ObservedAt), cmp.Compare(a.Provider, b.Provider),
			cmp.Compare(a.Window, b.Window), cmp.Compare(a.UsedPercent, b.UsedPercent), a.ResetsAt.Compare(b.ResetsAt))
	})
	return samples
}

// latestActivity is each session's latest activity stamped in, across
// its files, with its file's login.
func latestActivity(files []*file, in func(time.Time) bool, login func(*file) string) []burn.Activity {
	type sessionKey struct {
		p burn.Provider
		s string
	}
	latest := map[sessionKey]burn.Activity{}
	for _, f := range files {
		if a := f.activity; !a.At.IsZero() && in(a.At) {
			a.Account = login(f)
			k := sessionKey{a.Provider, a.Session}
			if old, ok := latest[k]; !ok || a.At.After(old.At) {
				latest[k] = a
			}
		}
	}
	out := slices.Collect(maps.Values(latest))
	slices.SortFunc(out, func(a, b burn.Activity) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Session, b.Session))
	})
	return out
}

// warningsLocked is every warning of the files, the last discovery and
// extra, each once, sorted.
func (t *Tailer) warningsLocked(extra ...string) []string {
	var out []string
	for _, f := range t.files {
		out = append(out, f.warnings...)
	}
	out = append(out, t.warnings...)
	out = append(out, t.problemWarningsLocked()...)
	out = append(out, extra...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Stats describe what a Tailer found and how it keeps up, for runway
// doctor and for tests.
type Stats struct {
	Roots     []RootStats
	BytesRead int64 // total bytes read from session files
	// BytesChecked is the part of BytesRead only checksummed (readCheck).
	BytesChecked int64
	Follow       FollowState // how Follow keeps up
	Warnings     []string
}

// RootStats describe one root.
type RootStats struct {
	Provider  burn.Provider
	Dir       string
	Exists    bool
	Files     int       // session files found
	InWindow  int       // files touched inside the lookback (opened)
	Newest    string    // the most recently modified session file
	NewestMod time.Time // and its modification time
	Zst       int       // compressed rollouts, not read yet
}

// Stats returns what the last Scan found. Unlike Usage's, its warnings
// say a fallback to rescans.
func (t *Tailer) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	var extra []string
	if t.fallback != "" {
		extra = append(extra, "tail: "+t.fallback)
	}
	return Stats{Roots: slices.Clone(t.roots), BytesRead: t.bytesRead, BytesChecked: t.bytesChecked,
		Follow: t.follow, Warnings: t.warningsLocked(extra...)}
}

// unreadLocked is Usage.Unread: the files that would not open and the
// folders that would not list, said in one line with the first path.
func (t *Tailer) unreadLocked() []string {
	var paths []string
	for _, p := range t.problems {
		if !p.gone {
			paths = append(paths, p.path)
		}
	}
	for _, f := range t.files {
		if f.problem != nil && !f.problem.gone {
			paths = append(paths, f.problem.path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	what := "session logs at " + printable.String(paths[0])
	if len(paths) > 1 {
		what += fmt.Sprintf(" and %d more", len(paths)-1)
	}
	return []string{what + " (see the warnings)"}
}

// problemWarningsLocked says the paths the last discovery and the reads
// could not use, grouped.
func (t *Tailer) problemWarningsLocked() []string {
	ps := slices.Clone(t.problems)
	for _, f := range t.files {
		if f.problem != nil {
			ps = append(ps, *f.problem)
		}
	}
	return problemWarnings(ps)
}

// generation changes whenever Usage may return something new.
func (t *Tailer) generation() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// warnf is a warning; the paths and texts in it came from the disk, so
// it is made printable here, once for every surface.
func warnf(format string, args ...any) string {
	return printable.String(fmt.Sprintf("tail: "+format, args...))
}

// pathWarning is a warning about path that says the path once.
func pathWarning(op, path string, err error) string {
	return warnf("%s %s: %v", op, path, unwrapPath(err))
}

// unwrapPath drops an *fs.PathError's path: the warning names it already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
