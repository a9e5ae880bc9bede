package runway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
)

// Engine keeps a snapshot current for the tray: it follows the session logs
// and runway's sample log, asks the account sources at their pace, and
// recomputes shortly after anything changes. Timers are monotonic, so sleep
// and wall-clock jumps only shift what "now" says, never the schedule.
type Engine struct {
	env  Env
	opts EngineOptions
	now  func() time.Time

	tail   *tail.Tailer
	claude *quota.ClaudeSources
	codex  *quota.AppServer
	logins *quota.Logins // each Claude root's login (burn.Input.Accounts)

	mu      sync.Mutex
	polled  []burn.Sample // samples the account sources returned, inside the lookback
	logged  []burn.Sample // runway's sample log, re-read when it changes (filtered by now on use)
	logWarn []string
	// logUnread: what readLog could not read (burn.Snapshot.Unread).
	logUnread []string
	logRead   bool
	logSeen   quota.LogMark // the log as last read: another one is read again
	// unwatched says why the state folder is not watched; the log is then
	// noticed only by its changed size or time at each recompute.
	unwatched string
	sources   map[string]quota.SourceState
	// codexLogged and noticeLogged are the last failure logged of each
	// kind: a state is logged when it changes, not at every poll or
	// recompute that meets it again.
	codexLogged   string
	noticeLogged  string
	sourcesLogged string
	latest        burn.Snapshot
	memory        burn.NoticeMemory
	pace          burn.NoticePace // notifications.min_interval between notices
	notify        bool
	// history is every account sample the latest snapshot was computed
	// from (the sample log, the rollouts, the sources): `runway watch`
	// charts it.
	history []burn.Sample

	// remote holds what the OTLP receiver took in (EngineOptions.Receive);
	// without it, what a runway serve saved is read (remoteFile).
	remote      *otlp.Store
	remoteSaved time.Time // when the store was last offered a save
	remoteErr   string    // why the last save failed
	remoteFile  remoteFile
	// remoteLost is when the remote sessions' file Run could not load was
	// written (zero: loaded).
	remoteLost time.Time
	poke       chan struct{}
}

// EngineOptions connect an Engine to its surfaces.
type EngineOptions struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnSnapshot receives every new snapshot; it must not block for long.
	OnSnapshot func(burn.Snapshot)
	// OnNotice delivers a notification decision. An error means it was not
	// delivered: it is decided again on a later update.
	OnNotice func(burn.Notice) error
	// NoNotices: a view that never notifies (`runway watch`) leaves the
	// decisions, and the memory of what was sent, to the tray.
	NoNotices bool
	// Debounce is the pause after a change before recomputing, so a burst of
	// lines costs one recompute (250 ms when zero).
	Debounce time.Duration
	// MinSpacing is the least time between two recomputes (1 s when zero):
	// with many sessions writing, lines land faster than a recompute is
	// worth, and each costs in proportion to the events in the window.
	MinSpacing time.Duration
	// ActiveRefresh and IdleRefresh are how often the snapshot is recomputed
	// without any change, while something moves and while nothing does:
	// freshness, waiting and run-out depend on time alone.
	ActiveRefresh, IdleRefresh time.Duration
	// PollEvery is how often the account sources are offered a turn; they
	// pace themselves (quota) and are asked for real far less often.
	PollEvery time.Duration
	// Logf reports what goes wrong in the background.
	Logf func(format string, args ...any)
	// Receive keeps the sessions that OpenTelemetry reports (Listen); they
	// are saved in the state folder for runway now and a restart.
	Receive bool

	// newWatcher makes the folder watchers (the session logs', the state
	// folder's): the system's when nil; a test's under testing/synctest.
	newWatcher func() (dirwatch.Watcher, error)
}

// NewEngine prepares an Engine; nothing is read before Run.
func NewEngine(env Env, o EngineOptions) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Debounce <= 0 {
		o.Debounce = 250 * time.Millisecond
	}
	if o.MinSpacing <= 0 {
		o.MinSpacing = time.Second
	}
	if o.ActiveRefresh <= 0 {
		o.ActiveRefresh = 5 * time.Second
	}
	if o.IdleRefresh <= 0 {
		o.IdleRefresh = time.Minute
	}
	if o.PollEvery <= 0 {
		o.PollEvery = 30 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.newWatcher == nil {
		o.newWatcher = dirwatch.New
	}
	logins := &quota.Logins{} // each root's login, read again when its .claude.json changes
	e := &Engine{
		env:  env,
		opts: o,
		now:  o.Now,
		pace: burn.NoticePace{Every: time.Duration(env.Config.Notifications.MinInterval)},
		tail: tail.New(tail.Options{
			Roots:           env.Roots,
			CacheReadWeight: env.Config.CacheReadWeight,
			Lookback:        time.Duration(env.Config.Lookback),
			Account:         env.claudeLoginOf(logins),
			Watcher:         o.newWatcher,
		}),
		logins:  logins,
		claude:  env.claudeSources(!env.Config.Offline, o.Now),
		codex:   &quota.AppServer{Path: env.Config.CodexPath, Offline: env.Config.Offline, Version: env.Version, Now: o.Now, Timeout: env.CodexTimeout},
		sources: map[string]quota.SourceState{},
		memory:  env.loadNotices(),
		notify:  env.Config.Notifications.Enabled,
		poke:    make(chan struct{}, 1),
	}
	if o.Receive {
		e.remote = otlp.NewStore(time.Duration(env.Config.Lookback), env.Config.CacheReadWeight)
	}
	return e
}

// SetNotifications turns notification delivery on or off (the tray's
// checkbox); decisions are still remembered while off, so turning it back
// on does not replay old news.
func (e *Engine) SetNotifications(on bool) {
	e.mu.Lock()
	e.notify = on
	e.mu.Unlock()
}

// Latest is the newest snapshot.
func (e *Engine) Latest() burn.Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.latest
}

// History is the account samples of provider p's window class observed
// since since, oldest first: what the latest snapshot was computed from,
// for `runway watch`'s chart.
func (e *Engine) History(p burn.Provider, class burn.WindowClass, since time.Time) []burn.Sample {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []burn.Sample
	for _, s := range e.history {
		if s.Provider == p && s.Window == class && !s.ObservedAt.Before(since) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b burn.Sample) int { return a.ObservedAt.Compare(b.ObservedAt) })
	return out
}

// Sources is the newest state of each account source, for doctor.
func (e *Engine) Sources() []quota.SourceState {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]quota.SourceState, 0, len(e.sources))
	for _, s := range e.sources {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b quota.SourceState) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Run follows everything until ctx ends, then stops the Codex app-server.
func (e *Engine) Run(ctx context.Context) error {
	defer e.codex.Close()
	// A tray that quit sees nothing: doctor asks the sources itself again.
	defer os.Remove(filepath.Join(e.env.StateDir, sourcesName))
	if e.remote != nil {
		if err := e.remote.Load(e.env.StateDir, e.now()); err != nil {
			e.opts.Logf("runway: %v", err)
			if fi, err := os.Stat(filepath.Join(e.env.StateDir, otlp.StoreName)); err == nil {
				e.remoteLost = fi.ModTime()
			}
		}
		defer func() {
			if err := e.remote.Save(e.env.StateDir); err != nil {
				e.opts.Logf("runway: %v", err)
			}
		}()
	}
	if err := e.tail.Scan(e.now()); err != nil {
		e.opts.Logf("runway: reading session logs: %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	changed := make(chan struct{}, 1)
	wait := e.feed(ctx, func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer wait()
	defer cancel()
	e.loop(ctx, changed)
	return nil
}

// feed starts what tells the engine something changed: the account
// sources' polls, the session logs and the state folder, each in its own
// goroutine so none waits for another (a source may block on the network).
// The returned func waits for them to end once ctx is done.
func (e *Engine) feed(ctx context.Context, signal func()) (wait func()) {
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(e.opts.PollEvery)
		defer tick.Stop()
		for {
			if e.poll(ctx) {
				signal()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	wg.Go(func() {
		if err := e.tail.Follow(ctx, e.now, signal); err != nil && !errors.Is(err, context.Canceled) {
			e.opts.Logf("runway: following session logs: %v", err)
		}
	})
	wg.Go(func() {
		e.watchState(ctx, func() {
			e.mu.Lock()
			e.logRead = false
			e.mu.Unlock()
			signal()
		})
	})
	return wg.Wait
}

// loop recomputes after each change (debounced, and spaced by MinSpacing),
// at the refresh pace when nothing changes, and compacts the sample log
// hourly, until ctx is done. Spacing uses the monotonic clock, never the
// wall clock.
func (e *Engine) loop(ctx context.Context, changed chan struct{}) {
	last := time.Now()
	e.recompute()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	refresh := time.NewTimer(e.refreshAfter())
	compact := time.NewTicker(time.Hour)
	defer compact.Stop()
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.poke:
			select {
			case changed <- struct{}{}:
			default:
			}
		case <-changed:
			if !pending {
				pending = true
				wait := e.opts.Debounce
				if since := time.Since(last); since+wait < e.opts.MinSpacing {
					wait = e.opts.MinSpacing - since
				}
				debounce.Reset(wait)
			}
		case <-debounce.C:
			pending = false
			last = time.Now()
			e.recompute()
			refresh.Reset(e.refreshAfter())
		case <-refresh.C:
			last = time.Now()
			e.recompute()
			refresh.Reset(e.refreshAfter())
		case <-compact.C:
			e.compactLog()
		}
	}
}

// refreshAfter is when time alone will have changed the snapshot enough to
// recompute it.
func (e *Engine) refreshAfter() time.Duration {
	s := e.Latest()
	for _, ss := range s.Sessions {
		if ss.RateKind != burn.Idle {
			return e.opts.ActiveRefresh
		}
	}
	for _, p := range s.Providers {
		if w := p.Window; w != nil && w.Fresh {
			return e.opts.ActiveRefresh
		}
	}
	return e.opts.IdleRefresh
}

// watchState calls changed when runway's sample log grows: `runway
// statusline` appends to it from every terminal.
func (e *Engine) watchState(ctx context.Context, changed func()) {
	if err := quota.WatchLog(ctx, e.env.StateDir, e.opts.newWatcher, changed); err != nil {
		e.opts.Logf("runway: watch state folder: %v", err)
		e.mu.Lock()
		e.unwatched = err.Error()
		e.mu.Unlock()
		changed()
	}
}

// poll offers each account source a turn and reports whether anything new
// came back. The sources pace themselves; the Codex app-server is asked
// only while the rollouts carry no fresh sample.
func (e *Engine) poll(ctx context.Context) bool {
	now := e.now()
	usage := e.tail.Usage(now.Add(-10 * time.Minute))
	got, states := e.claude.Poll(ctx, active(usage.Events, burn.Claude, now))
	fresh := freshSample(usage.Samples, burn.Codex, now)
	askCodex := !fresh && active(usage.Events, burn.Codex, now)
	if askCodex {
		rpc, err := e.codex.Read(ctx)
		logged := ""
		if err != nil && !errors.Is(err, quota.ErrNoCodex) && !errors.Is(err, quota.ErrOff) {
			logged = err.Error()
		}
		if logged != "" && logged != e.codexLogged {
			e.opts.Logf("runway: codex app-server: %s", logged)
		}
		e.codexLogged = logged
		got = append(got, rpc...)
		states = append(states, e.codex.State())
	} else {
		// Not needed now: say why, so doctor does not read it as broken.
		st := quota.SourceState{Name: quota.NameCodexRPC, State: quota.StatePaced, Detail: "not asked: no Codex turn in the last 5 minutes"}
		switch {
		case e.env.Config.Offline:
			st = e.codex.State()
		case fresh:
			st.Detail = "not asked: Codex's rollouts carry a fresh percent"
		}
		states = append(states, st)
	}
	e.env.record(now, append(newestOfEach(usage.Samples), got...))

	e.mu.Lock()
	defer e.mu.Unlock()
	news := false
	for _, s := range states {
		// A source that starts or stops failing changes the warnings.
		if old, ok := e.sources[s.Name]; !ok || !old.Alike(s) {
			news = true
		}
		e.sources[s.Name] = s
	}
	// At every poll, so its age says the engine still runs.
	if err := e.env.writeSources(now, e.sources); err != nil && err.Error() != e.sourcesLogged {
		e.opts.Logf("runway: %v", err)
		e.sourcesLogged = err.Error()
	}
	horizon := now.Add(-time.Duration(e.env.Config.Lookback))
	e.polled = slices.DeleteFunc(e.polled, func(s burn.Sample) bool { return s.ObservedAt.Before(horizon) })
	for _, s := range got {
		if !slices.ContainsFunc(e.polled, func(p burn.Sample) bool { return sameSample(p, s) }) {
			e.polled = append(e.polled, s)
			news = true
		}
	}
	return news
}

func sameSample(a, b burn.Sample) bool {
	return a.Provider == b.Provider && a.Window == b.Window && a.Source == b.Source &&
		a.ObservedAt.Equal(b.ObservedAt) && a.UsedPercent == b.UsedPercent && a.ResetsAt.Equal(b.ResetsAt) && a.Account == b.Account
}

func freshSample(samples []burn.Sample, p burn.Provider, now time.Time) bool {
	for _, s := range samples {
		if s.Provider == p && now.Sub(s.ObservedAt) <= quota.Fresh {
			return true
		}
	}
	return false
}

// recompute builds a new snapshot from what is known now, publishes it and
// delivers the notifications it calls for.
func (e *Engine) recompute() {
	now := e.now()
	lookback := time.Duration(e.env.Config.Lookback)
	usage := e.tail.Usage(now.Add(-lookback))
	remote, remoteWarnings, remoteUnread := e.remoteEvents(now)
	r := reading{
		usage:    withRemote(usage, remote, now),
		samples:  slices.Clone(usage.Samples),
		warnings: append(slices.Clone(usage.Warnings), remoteWarnings...),
		stats:    e.tail.Stats(),
		logins:   e.env.claudeLogins(e.logins),
	}
	mark := quota.LogIn(e.env.StateDir).Mark()
	e.mu.Lock()
	if mark.ChangedSince(e.logSeen) {
		// Changed since the last read, whether or not the watcher said so
		// (it may have failed, or be behind).
		e.logRead = false
	}
	if !e.logRead {
		// The whole log, not only what is older than now: a sample
		// appended between now and this read has had its watch event
		// already, and would be missing until the next append.
		e.logged, e.logWarn, e.logUnread = e.env.readLog(now.Add(-sampleHistory))
		e.logRead, e.logSeen = true, mark
	}
	r.samples = append(r.samples, samplesUntil(e.logged, now)...)
	r.samples = append(r.samples, e.polled...)
	e.history = r.samples
	r.warnings = append(r.warnings, e.logWarn...)
	if e.unwatched != "" {
		r.warnings = append(r.warnings, "sample log: not watched ("+e.unwatched+"): read again at each refresh")
	}
	for _, name := range slices.Sorted(maps.Keys(e.sources)) {
		r.states = append(r.states, e.sources[name])
	}
	r.unread = append(slices.Clone(e.logUnread), remoteUnread...)
	e.mu.Unlock()
	if f := r.stats.Follow; f != tail.NotFollowing && f != tail.Watching {
		r.warnings = append(r.warnings, "session logs: "+string(f)+" (updates come every few seconds; raising fs.inotify.max_user_watches brings them back to instant)")
	}
	snap := e.env.snapshot(now, r)

	if err := e.env.WriteSnapshot(snap); err != nil {
		snap.Warnings = append(snap.Warnings, fmt.Sprintf("cannot write the snapshot for runway now: %v", err))
	}
	e.mu.Lock()
	e.latest = snap
	e.mu.Unlock()
	if e.opts.OnSnapshot != nil {
		e.opts.OnSnapshot(snap)
	}
	if !e.opts.NoNotices {
		e.deliver(snap)
	}
}

// remoteEvents is the remote sessions' usage: what this engine received
// (saved for runway now when it changed), else what a runway serve saved.
func (e *Engine) remoteEvents(now time.Time) ([]burn.Event, []string, []string) {
	since := now.Add(-time.Duration(e.env.Config.Lookback))
	if e.remote == nil {
		return e.remoteFile.read(e.env, since)
	}
	e.remote.Prune(now)
	// The snapshot carries them while it is fresh; the file is for when it
	// is not (this process stopped), so it is written at that pace, not at
	// every recompute: with 1,000 sessions it is megabytes.
	if d := now.Sub(e.remoteSaved); d >= SnapshotFresh || d < 0 {
		if err := e.remote.Save(e.env.StateDir); err != nil {
			e.remoteErr = fmt.Sprintf("%v: runway now sees the remote sessions only while this snapshot is fresh", err)
		} else {
			e.remoteErr = ""
		}
		e.remoteSaved = now
	}
	var warnings []string
	if e.remoteErr != "" {
		warnings = append(warnings, e.remoteErr)
	}
	var unread []string
	if !e.remoteLost.IsZero() && !e.remoteLost.Before(since) {
		// The sessions of the file Run could not load may burn still.
		unread = []string{"the remote sessions runway serve saved before it started"}
	}
	return e.remote.Events(), warnings, unread
}

// Changed asks for a recompute soon, as a new line in a log does.
func (e *Engine) Changed() {
	select {
	case e.poke <- struct{}{}:
	default:
	}
}

// errPaced is why a notice waits: it is decided again later.
var errPaced = errors.New("held back: another notification went out less than notifications.min_interval ago")

// deliver decides the notifications for s and hands them to OnNotice; one
// that could not be delivered is forgotten, so it is decided again.
func (e *Engine) deliver(s burn.Snapshot) {
	e.mu.Lock()
	before := e.memory
	notices, mem := burn.Decide(s, before, e.env.Config.Burn())
	on := e.notify
	e.mu.Unlock()
	for _, n := range notices {
		if !e.env.Config.Notifications.wants(n.Kind) {
			// Decide marked the notices this one covers as sent; a kind the
			// user turned off covers nothing, so the "low" it stood for can
			// still come.
			if n.Kind == burn.NoticeBurningFast {
				mem.ForgetCovered(n.Key, burn.NoticeLow)
			}
			continue
		}
		if !on || e.opts.OnNotice == nil {
			continue
		}
		err := errPaced
		if e.pace.Allow(n, s.At) {
			err = e.opts.OnNotice(n)
		}
		if err != nil {
			delete(mem.Sent, n.Key)
		}
		// Decided again at every recompute while it fails: say so once.
		logged := ""
		if err != nil {
			logged = err.Error()
		}
		if logged != "" && logged != e.noticeLogged {
			e.opts.Logf("runway: notification not delivered: %s", logged)
		}
		e.noticeLogged = logged
	}
	e.mu.Lock()
	e.memory = mem
	e.mu.Unlock()
	if maps.Equal(mem.Sent, before.Sent) && maps.Equal(mem.Calm, before.Calm) {
		return
	}
	if err := e.env.saveNotices(mem); err != nil {
		e.opts.Logf("runway: %v", err)
	}
}

// wants says whether the user wants notices of kind k.
func (n Notifications) wants(k burn.NoticeKind) bool {
	switch k {
	case burn.NoticeBurningFast:
		return n.BurningFast
	case burn.NoticeLow:
		return n.Low
	case burn.NoticeExhausted:
		return n.Exhausted
	case burn.NoticeReset:
		return n.Reset
	}
	return false
}

// compactLog drops old samples from the log so reading it stays cheap.
func (e *Engine) compactLog() {
	log, err := quota.OpenLog(e.env.StateDir)
	if err == nil {
		err = log.Compact(e.now(), sampleHistory)
	}
	if err != nil {
		e.opts.Logf("runway: compact the sample log: %v", err)
	}
}
