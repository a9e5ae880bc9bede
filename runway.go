// Package runway is the pipeline every surface shares: it connects tail (the
// logs), quota (the account sources) and burn (the arithmetic) into a
// burn.Snapshot, once (Evaluate) or continuously (Engine), so that no two
// surfaces can disagree.
package runway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// Env is where runway looks and what it may do: the settings, the agents'
// folders and runway's own state folder. Its methods, by what they serve:
// the one-shot pipeline (runway.go), the sample log (samplelog.go), the
// logins (accounts.go), the logs' warnings (logs.go), the remote sessions
// (remote.go), the state folder's other files (state.go), the statusline.
type Env struct {
	Config   Config
	Roots    tail.Roots
	StateDir string
	Home     string
	Version  string // sent to the Codex app-server as its clientInfo
	// ClaudeCacheDir is the shared cache ($RUNWAY_CLAUDE_CACHE_DIR; "" is /tmp/claude).
	ClaudeCacheDir string
	// ClaudeEndpoint and ClaudeClient replace the usage endpoint (tests).
	ClaudeEndpoint string
	ClaudeClient   *http.Client
	CodexTimeout   time.Duration // per app-server call (0: quota's default)
	NoIndex        bool          // read every log cold, keeping no index (tests)
}

// ShortPath shortens a path under home for people to read.
func ShortPath(path, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// ErrNoHome: without a home, every folder would be relative to the current one.
var ErrNoHome = errors.New("HOME is not set (or not an absolute path): runway would look for your logs and keep its state relative to the current folder; set HOME to your home folder (export HOME=/home/you)")

// homeMissing is a HOME that names no folder; errors.Is takes it for ErrNoHome.
type homeMissing struct{ home string }

func (h homeMissing) Error() string {
	return fmt.Sprintf("HOME is %s, which is not a folder: runway would make its state folders there; set HOME to your home folder (export HOME=/home/you)", h.home)
}

func (h homeMissing) Is(target error) bool { return target == ErrNoHome }

// LoadEnv builds this process's Env from the environment and the config file.
func LoadEnv(getenv func(string) string) (Env, error) {
	h := homeDir(getenv)
	if !filepath.IsAbs(h) {
		return Env{}, ErrNoHome
	}
	if fi, err := os.Stat(h); err != nil || !fi.IsDir() {
		return Env{}, homeMissing{h}
	}
	path := ConfigPath(getenv)
	if named := getenv("RUNWAY_CONFIG"); named != "" {
		// Silently using the defaults would hide a typo in the path.
		if _, err := os.Stat(named); err != nil {
			return Env{}, fmt.Errorf("config %s (RUNWAY_CONFIG): %w (create it, or unset RUNWAY_CONFIG)", named, err)
		}
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return Env{}, err
	}
	return NewEnv(getenv, cfg), nil
}

// NewEnv builds an Env from cfg, whose roots replace the discovered ones.
func NewEnv(getenv func(string) string, cfg Config) Env {
	home := homeDir(getenv)
	roots := tail.DefaultRoots(getenv, home)
	if len(cfg.Roots.Claude) > 0 {
		roots.Claude = expandAll(cfg.Roots.Claude, home)
	}
	if len(cfg.Roots.Codex) > 0 {
		roots.Codex = expandAll(cfg.Roots.Codex, home)
	}
	return Env{Config: cfg, Roots: roots, StateDir: StateDir(getenv), Home: home,
		ClaudeCacheDir: getenv("RUNWAY_CLAUDE_CACHE_DIR")}
}

func expandAll(paths []string, home string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		}
		out = append(out, p)
	}
	return out
}

// Evaluation is one answer with what it was made from.
type Evaluation struct {
	Snapshot burn.Snapshot
	Tail     tail.Stats
	Sources  []quota.SourceState
}

// EvalOptions shape a one-shot evaluation.
type EvalOptions struct {
	// At evaluates as of that instant from data stamped at or before it,
	// asking no live source; zero means now.
	At  time.Time
	Now func() time.Time // time.Now when nil
	// Live lets Claude's account sources be asked (paced across processes).
	Live        bool
	LiveTimeout time.Duration // so a prompt never hangs on a live call
	// Samples the caller holds (the statusline's stdin) count even when the
	// sample log cannot keep them.
	Samples []burn.Sample
}

// Evaluate computes the snapshot from the files on disk, reading only what
// was appended since the index the last run left.
func (e Env) Evaluate(ctx context.Context, o EvalOptions) Evaluation {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	at, historic := o.At, !o.At.IsZero()
	if !historic {
		at = now()
	}
	lookback := time.Duration(e.Config.Lookback)
	tr := tail.New(tail.Options{
		Roots:           e.Roots,
		CacheReadWeight: e.Config.CacheReadWeight,
		Lookback:        lookback,
		Until:           o.At,
		WindowStep:      windowStep(lookback),
		Account:         e.claudeLoginOf(),
	})
	var index []byte
	if !historic { // an index is of the present only (tail.Options.Until)
		index = e.restoreIndex(tr)
	}
	var warnings []string
	if err := tr.Scan(at); err != nil {
		warnings = append(warnings, fmt.Sprintf("reading session logs: %v", err))
	}
	e.saveIndex(tr, index)
	usage := tr.Usage(at.Add(-lookback))
	remote, remoteWarnings, remoteUnread := e.remoteEvents(at.Add(-lookback))
	logged, logWarnings, unread := e.loggedSamples(at, historic)
	r := reading{
		usage:    withRemote(usage, remote, at),
		warnings: append(append(append(warnings, usage.Warnings...), remoteWarnings...), logWarnings...),
		unread:   append(unread, remoteUnread...),
		stats:    tr.Stats(),
		logins:   e.ClaudeLogins(),
	}
	r.samples = slices.Concat(usage.Samples, logged, o.Samples)
	if !historic {
		if o.LiveTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, o.LiveTimeout)
			defer cancel()
		}
		got, st := e.claudeSources(o.Live && !e.Config.Offline, now).Poll(ctx, active(usage.Events, burn.Claude, at))
		r.samples = append(r.samples, got...)
		r.states = st
		e.record(at, append(newestOfEach(usage.Samples), got...))
	}
	snap := e.snapshot(at, r)
	return Evaluation{Snapshot: snap, Tail: r.stats, Sources: r.states}
}

// windowStep rounds a one-shot read's window start (tail.Options.WindowStep),
// so runs inside one step read each log from the same line and share an index.
func windowStep(lookback time.Duration) time.Duration {
	return min(time.Hour, lookback/6)
}

// reading is what one evaluation read, one-shot (Evaluate) or live (Engine):
// both hand it to snapshot, so `runway now` and the tray cannot drift.
type reading struct {
	usage    tail.Usage    // local and remote events, the rollouts' samples
	samples  []burn.Sample // every account sample, whatever its source
	warnings []string      // what went wrong reading them
	unread   []string      // what could not be read at all (burn.Snapshot.Unread)
	states   []quota.SourceState
	stats    tail.Stats
	logins   []burn.Account
}

// snapshot turns a reading into the snapshot every surface shows.
func (e Env) snapshot(now time.Time, r reading) burn.Snapshot {
	warnings := r.warnings
	for _, s := range r.states {
		if w := text.SourceWarning(s, now, time.Local); w != "" {
			warnings = append(warnings, w)
		}
	}
	snap := e.compute(now, r.usage, r.samples, warnings, r.logins)
	snap.Unread = slices.Concat(r.unread, r.usage.Unread, rolloutsAhead(r.usage.Samples, now, e.Config.Burn().FutureSkew),
		blindProviders(snap, r.states), e.unwatchedPlans(snap))
	e.withLogsWarning(&snap, r.stats, now)
	return snap
}

// compute runs the burn model at now. Samples older than the horizon count
// only as their window's newest, so the answer does not depend on how much
// history happened to be read.
func (e Env) compute(now time.Time, usage tail.Usage, samples []burn.Sample, warnings []string, accounts []burn.Account) burn.Snapshot {
	horizon := min(time.Duration(e.Config.Lookback), sampleHorizon)
	return burn.Compute(burn.Input{
		Now:      now,
		Events:   usage.Events,
		Samples:  insideLookback(samples, now.Add(-horizon)),
		Activity: usage.Activity,
		Warnings: warnings,
		Accounts: accounts,
	}, e.Config.Burn())
}

// sampleHorizon is the default lookback: the most of a rollout a cold start sees.
const sampleHorizon = 6 * time.Hour

// insideLookback keeps the samples observed since start, and for a window
// with none of those, its newest older one; each observation once.
func insideLookback(samples []burn.Sample, start time.Time) []burn.Sample {
	type series struct {
		p       burn.Provider
		w       burn.WindowClass
		account string
	}
	recent := map[series]bool{}
	newestOld := map[series]burn.Sample{}
	// A rollout's sample is also in the sample log: keep it once.
	type observation struct {
		series
		src        burn.Source
		used       float64
		at, resets int64
	}
	seen := make(map[observation]bool, len(samples))
	out := make([]burn.Sample, 0, len(samples))
	// As in burn, a provider's logins are told apart only when it has several.
	logins := map[burn.Provider]map[string]bool{}
	for _, s := range samples {
		if s.Account != "" {
			if logins[s.Provider] == nil {
				logins[s.Provider] = map[string]bool{}
			}
			logins[s.Provider][s.Account] = true
		}
	}
	for _, s := range samples {
		account := s.Account
		if len(logins[s.Provider]) < 2 {
			account = ""
		}
		k := series{s.Provider, s.Window, account}
		o := observation{k, s.Source, s.UsedPercent, s.ObservedAt.UnixNano(), s.ResetsAt.UnixNano()}
		if seen[o] {
			continue
		}
		seen[o] = true
		if !s.ObservedAt.Before(start) {
			out = append(out, s)
			recent[k] = true
			continue
		}
		if old, ok := newestOld[k]; !ok || s.ObservedAt.After(old.ObservedAt) {
			newestOld[k] = s
		}
	}
	for k, s := range newestOld {
		if !recent[k] {
			out = append(out, s)
		}
	}
	return out
}

// blindProviders names each provider without a window figure while one of
// its account sources failed: burn.Gate must not say "on track".
func blindProviders(s burn.Snapshot, states []quota.SourceState) []string {
	var out []string
	for _, p := range s.Providers {
		// The sessions of a folder without a login have no source to fail.
		if p.WorstWindow() != nil || p.Account == "" && p.AccountLabel == burn.UnknownLogin {
			continue
		}
		for _, st := range states {
			// The statusline source is the sample log, which readLog names.
			if st.Name != quota.NameStatusline && strings.HasPrefix(st.Name, string(p.Provider)+"-") && st.NeedsLook() {
				out = append(out, fmt.Sprintf("%s's account (%s: %s)", p.Name(), st.Name, st.State))
			}
		}
	}
	return out
}

// unwatchedPlans names Claude on a subscription login (quota.Subscribed)
// whose sessions burn while no source gives any window's percent: the plan's
// window can run dry unseen. An API-key login has no window to watch.
func (e Env) unwatchedPlans(s burn.Snapshot) []string {
	var out []string
	for _, p := range s.Providers {
		if p.Provider != burn.Claude || len(p.Windows()) > 0 || !s.Burning(p) ||
			p.Account == "" && p.AccountLabel == burn.UnknownLogin {
			continue
		}
		for _, dir := range e.Roots.Claude {
			if (p.Account == "" || quota.Account(dir, e.Home) == p.Account) && quota.Subscribed(dir) {
				out = append(out, p.Name()+"'s window percent: its sessions burn on a subscription login and no source gives it "+
					"(run `runway setup`: it makes `runway statusline` Claude Code's statusLine)")
				break
			}
		}
	}
	return out
}

// active says whether a session of p wrote usage recently: its account
// source may then be asked more often.
func active(events []burn.Event, p burn.Provider, at time.Time) bool {
	for _, ev := range events {
		if ev.Provider == p && at.Sub(ev.At) < 5*time.Minute {
			return true
		}
	}
	return false
}

func (e Env) claudeSources(live bool, now func() time.Time) *quota.ClaudeSources {
	return &quota.ClaudeSources{
		ConfigDirs: e.Roots.Claude,
		Home:       e.Home,
		CacheDir:   e.ClaudeCacheDir,
		StateDir:   e.StateDir,
		Endpoint:   e.ClaudeEndpoint,
		Client:     e.ClaudeClient,
		Offline:    !live,
		Now:        now,
	}
}
