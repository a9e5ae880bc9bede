package runway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
)

// Engine keeps a snapshot current for the tray: it follows the session logs
// and the sample log, asks the account sources at their pace, and recomputes
// shortly after anything changes. Its timers are monotonic: a wall-clock
// jump shifts what "now" says, never the schedule.
type Engine struct {
	env  Env
	opts EngineOptions
	now  func() time.Time

	tail   *tail.Tailer
	claude *quota.ClaudeSources
	codex  *quota.AppServer

	mu     sync.Mutex
	polled []burn.Sample // what the account sources returned, inside the lookback
	// The sample log as last read, read again when it changed (logSeen).
	logged         []burn.Sample
	logWarn        []string
	logUnread      []string
	logRead        bool
	logSeen        quota.LogMark
	unwatched      string // why the state folder is not watched
	sources        map[string]quota.SourceState
	codexFailed    logOnce
	noticeFailed   logOnce
	sourcesUnsaved logOnce
	latest         burn.Snapshot
	memory         burn.NoticeMemory
	pace           burn.NoticePace // notifications.min_interval between notices
	notify         bool
	history        []burn.Sample // the latest snapshot's samples, for watch's chart

	// remote is what the OTLP receiver took in (Receive); without it, what a
	// runway serve saved (remoteFile).
	remote      *otlp.Store
	remoteSaved time.Time
	remoteErr   string
	remoteFile  remoteFile
	remoteLost  time.Time // when the file Run could not load was written
	poke        chan struct{}
}

// logOnce logs a failure when it changes, not at every poll that meets it.
type logOnce string

func (l *logOnce) log(logf func(string, ...any), prefix string, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg != "" && msg != string(*l) {
		logf("%s%s", prefix, msg)
	}
	*l = logOnce(msg)
}

// EngineOptions connect an Engine to its surfaces.
type EngineOptions struct {
	Now        func() time.Time    // time.Now when nil
	OnSnapshot func(burn.Snapshot) // must not block for long
	// OnNotice delivers a notice; one that fails is decided again later.
	OnNotice func(burn.Notice) error
	// NoNotices leaves the decisions and their memory to the tray (watch).
	NoNotices bool
	// Debounce (250 ms) makes a burst of lines cost one recompute;
	// MinSpacing (1 s) spaces recomputes while many sessions write.
	Debounce, MinSpacing time.Duration
	// ActiveRefresh (5 s) and IdleRefresh (1 min) recompute without a
	// change: freshness, waiting and run-out move with time alone.
	ActiveRefresh, IdleRefresh time.Duration
	// PollEvery (30 s) offers the account sources a turn; they pace themselves.
	PollEvery time.Duration
	Logf      func(format string, args ...any)
	// Receive keeps the sessions OpenTelemetry reports (Listen), saved in
	// the state folder for runway now and a restart.
	Receive bool
	// newWatcher is the system's when nil; a test's under testing/synctest.
	newWatcher func() (dirwatch.Watcher, error)
}

// NewEngine prepares an Engine; nothing is read before Run.
func NewEngine(env Env, o EngineOptions) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	defaults := map[*time.Duration]time.Duration{
		&o.Debounce:      250 * time.Millisecond,
		&o.MinSpacing:    time.Second,
		&o.ActiveRefresh: 5 * time.Second,
		&o.IdleRefresh:   time.Minute,
		&o.PollEvery:     30 * time.Second,
	}
	for d, v := range defaults {
		if *d <= 0 {
			*d = v
		}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.newWatcher == nil {
		o.newWatcher = dirwatch.New
	}
	e := &Engine{
		env:  env,
		opts: o,
		now:  o.Now,
		pace: burn.NoticePace{Every: time.Duration(env.Config.Notifications.MinInterval)},
		tail: tail.New(tail.Options{
			Roots:           env.Roots,
			CacheReadWeight: env.Config.CacheReadWeight,
			Lookback:        time.Duration(env.Config.Lookback),
			Account:         env.claudeLoginOf(),
			Watcher:         o.newWatcher,
		}),
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

// SetNotifications turns delivery on or off; decisions are still
// remembered while off, so turning it back on replays no old news.
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

// History is p's samples of class since since, oldest first, that the
// latest snapshot was computed from (watch's chart).
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
	return sortedStates(e.sources)
}

// Run follows everything until ctx ends, then stops the Codex app-server.
func (e *Engine) Run(ctx context.Context) (err error) {
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
		// A last save that fails loses what runway now would read after
		// this process: the exit says so.
		defer func() {
			if saveErr := e.remote.Save(e.env.StateDir); saveErr != nil && err == nil {
				err = fmt.Errorf("remote sessions not saved at exit: %w", saveErr)
			} else if saveErr != nil {
				e.opts.Logf("runway: %v", saveErr)
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

// feed starts what signals a change (the sources' polls, the session logs,
// the state folder), each in its own goroutine: a source may block on the
// network. The returned func waits for them once ctx is done.
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

// loop recomputes after each change (debounced and spaced), at the refresh
// pace otherwise, and compacts the sample log hourly, until ctx is done.
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

// refreshAfter is when time alone will have changed the snapshot.
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
// came back; the Codex app-server only while the rollouts have no fresh sample.
func (e *Engine) poll(ctx context.Context) bool {
	now := e.now()
	usage := e.tail.Usage(now.Add(-10 * time.Minute))
	got, states := e.claude.Poll(ctx, active(usage.Events, burn.Claude, now))
	fresh := freshSample(usage.Samples, burn.Codex, now)
	askCodex := !fresh && active(usage.Events, burn.Codex, now)
	if askCodex {
		rpc, err := e.codex.Read(ctx)
		if errors.Is(err, quota.ErrNoCodex) || errors.Is(err, quota.ErrOff) {
			err = nil
		}
		e.codexFailed.log(e.opts.Logf, "runway: codex app-server: ", err)
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
	e.sourcesUnsaved.log(e.opts.Logf, "runway: ", e.env.writeSources(now, sortedStates(e.sources)))
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
		logins:   e.env.ClaudeLogins(),
	}
	mark := quota.LogIn(e.env.StateDir).Mark()
	e.mu.Lock()
	if mark.ChangedSince(e.logSeen) { // whether or not the watcher said so
		e.logRead = false
	}
	if !e.logRead {
		// Not only what is older than now: a sample appended during this
		// read has had its watch event already.
		e.logged, e.logWarn, e.logUnread = e.env.readLog(now.Add(-sampleHistory))
		e.logRead, e.logSeen = true, mark
	}
	r.samples = append(r.samples, samplesUntil(e.logged, now)...)
	r.samples = append(r.samples, e.polled...)
	e.history = r.samples
	stepWarn, stepUnread := clockStepped(e.logged, now)
	r.warnings = append(append(r.warnings, e.logWarn...), stepWarn...)
	if e.unwatched != "" {
		r.warnings = append(r.warnings, "sample log: not watched ("+e.unwatched+"): read again at each refresh")
	}
	r.states = sortedStates(e.sources)
	r.unread = slices.Concat(e.logUnread, stepUnread, remoteUnread)
	e.mu.Unlock()
	if f := r.stats.Follow; f != tail.NotFollowing && f != tail.Watching {
		r.warnings = append(r.warnings, "session logs: "+string(f)+" (updates come every few seconds; raising fs.inotify.max_user_watches brings them back to instant)")
	}
	snap := e.env.snapshot(now, r)

	if err := e.env.writeSnapshot(SnapshotName, snap); err != nil {
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

// remoteEvents is what this engine received, else what a runway serve saved.
func (e *Engine) remoteEvents(now time.Time) ([]burn.Event, []string, []string) {
	since := now.Add(-time.Duration(e.env.Config.Lookback))
	if e.remote == nil {
		return e.remoteFile.read(e.env, since)
	}
	e.remote.Prune(now)
	// The snapshot carries them while fresh; the file (megabytes with 1,000
	// sessions) is for after this process stops, so saved at that pace.
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
			// A kind turned off covers nothing: the "low" it stood for may come.
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
		e.noticeFailed.log(e.opts.Logf, "runway: notification not delivered: ", err)
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
