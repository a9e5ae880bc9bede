package runway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/tail"
)

// The proof that the tray and `runway now --at` agree: a real Engine follows
// a folder while generated agents play into it; at checkpoints its snapshot
// must equal a cold Evaluate as of the same instant over the same files.

// clock is the engine's injected time: the test moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// playStart is where play time begins: well behind the wall clock, so a
// file's modification time (the wall clock's) is never older than the
// lookback of any play instant, as on a real disk where mtime follows the
// lines written.
func playStart(ahead time.Duration) time.Time {
	return time.Now().Add(-ahead - time.Hour).UTC().Truncate(time.Minute)
}

// playEnv is an Env over the play's folders, offline, with nothing of the
// user's reachable.
func playEnv(t testing.TB, a *synth.Agents, lookback time.Duration) Env {
	cfg := DefaultConfig()
	cfg.Offline = true
	cfg.Lookback = Duration(lookback)
	home := t.TempDir()
	return Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{a.ClaudeDir()}, Codex: []string{a.CodexDir()}},
		StateDir:       a.StateDir(),
		Home:           home,
		ClaudeCacheDir: filepath.Join(home, "claude-cache"),
		Version:        "test",
	}
}

// live is a running Engine and what the test needs to follow it.
type live struct {
	t     testing.TB
	env   Env
	clock *clock
	e     *Engine
	// snaps is signalled after every new snapshot.
	snaps chan struct{}
	stop  func()

	mu       sync.Mutex
	onSnap   func(burn.Snapshot) // extra observer (latency probes)
	logLines []string
}

// startLive runs an Engine over env with the clock at start and waits for
// its first snapshot.
func startLive(t testing.TB, env Env, start time.Time, tune func(*EngineOptions)) *live {
	l := &live{t: t, env: env, clock: &clock{t: start}, snaps: make(chan struct{}, 1)}
	o := EngineOptions{
		Now:        l.clock.Now,
		Debounce:   2 * time.Millisecond,
		MinSpacing: 2 * time.Millisecond,
		// Only the follower and the state watcher trigger recomputes
		// unless a test asks otherwise: what the snapshot shows comes from
		// the files.
		ActiveRefresh: time.Hour,
		IdleRefresh:   time.Hour,
		PollEvery:     time.Hour,
		OnSnapshot: func(s burn.Snapshot) {
			l.mu.Lock()
			f := l.onSnap
			l.mu.Unlock()
			if f != nil {
				f(s)
			}
			select {
			case l.snaps <- struct{}{}:
			default:
			}
		},
		Logf: func(format string, args ...any) {
			l.mu.Lock()
			l.logLines = append(l.logLines, fmt.Sprintf(format, args...))
			l.mu.Unlock()
		},
	}
	if tune != nil {
		tune(&o)
	}
	l.e = NewEngine(env, o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.e.Run(ctx) }()
	var once sync.Once
	l.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Engine.Run: %v", err)
			}
		})
	}
	t.Cleanup(l.stop)
	l.waitFor("the first snapshot", func(s burn.Snapshot) bool { return !s.At.IsZero() })
	return l
}

// catchUp bounds every wait for the engine: fsnotify and the recompute are
// real mechanisms, so the test waits for their result, never for a time.
// The bound only ends a test that would never pass: it is wide because a
// CI machine running the race detector on two busy cores can take tens of
// seconds over a rescan that takes milliseconds alone.
const catchUp = 90 * time.Second

// waitFor waits until the engine's latest snapshot satisfies ok, checking
// after each new snapshot; false when the deadline passed first.
func (l *live) waitFor(what string, ok func(burn.Snapshot) bool) bool {
	l.t.Helper()
	deadline := time.NewTimer(catchUp)
	defer deadline.Stop()
	for {
		if ok(l.e.Latest()) {
			return true
		}
		select {
		case <-l.snaps:
		case <-deadline.C:
			l.t.Errorf("engine: no snapshot with %s within %v", what, catchUp)
			return false
		}
	}
}

// replay is `runway now --json --at T` over the same files.
func replay(env Env, at time.Time) burn.Snapshot {
	return env.Evaluate(context.Background(), EvalOptions{At: at}).Snapshot
}

// sameAsReplay waits until the engine's snapshot at the clock's instant
// equals a cold evaluation as of it, and fails with the differences when
// it never does.
func (l *live) sameAsReplay(label string) burn.Snapshot {
	l.t.Helper()
	at := l.clock.Now()
	want := replay(l.env, at)
	var diff []string
	deadline := time.NewTimer(catchUp)
	defer deadline.Stop()
	for {
		got := l.e.Latest()
		if got.At.Equal(at) {
			if diff = snapshotDiff(got, want); len(diff) == 0 {
				return want
			}
		} else {
			diff = []string{fmt.Sprintf("at: live %s, replay %s", got.At.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano))}
		}
		select {
		case <-l.snaps:
			continue
		case <-deadline.C:
		}
		break
	}
	if len(diff) > 40 {
		diff = append(diff[:40], fmt.Sprintf("… and %d more", len(diff)-40))
	}
	l.t.Errorf("%s: live snapshot differs from replay as of %s (%d sessions live, %d replayed):\n  %s",
		label, at.Format(time.RFC3339), len(l.e.Latest().Sessions), len(want.Sessions), strings.Join(diff, "\n  "))
	l.mu.Lock()
	for _, line := range l.logLines {
		l.t.Logf("engine log: %s", line)
	}
	l.mu.Unlock()
	return want
}

// snapshotDiff lists, field by field, where two snapshots differ. Floats
// agree within rounding; sessions are matched by provider and id, not by
// rank, so one difference reads as one line.
func snapshotDiff(live, replay burn.Snapshot) []string {
	a, b := flatten(live), flatten(replay)
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		x, okx := a[k]
		y, oky := b[k]
		switch {
		case !okx:
			out = append(out, fmt.Sprintf("%s: live has none, replay %v", k, y))
		case !oky:
			out = append(out, fmt.Sprintf("%s: live %v, replay has none", k, x))
		case !sameValue(x, y):
			out = append(out, fmt.Sprintf("%s: live %v, replay %v", k, x, y))
		}
	}
	return out
}

func sameValue(x, y any) bool {
	fx, okx := x.(float64)
	fy, oky := y.(float64)
	if okx && oky {
		return math.Abs(fx-fy) <= 1e-6*math.Max(1, math.Max(math.Abs(fx), math.Abs(fy)))
	}
	return x == y
}

// flatten turns a snapshot's JSON into path → leaf value.
func flatten(s burn.Snapshot) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(err)
	}
	// Sessions by identity, providers by name, warnings as a set.
	if ss, ok := v["sessions"].([]any); ok {
		m := map[string]any{}
		for _, x := range ss {
			s := x.(map[string]any)
			m[fmt.Sprintf("%v/%v", s["provider"], s["id"])] = s
		}
		v["sessions"] = m
	}
	if ps, ok := v["providers"].([]any); ok {
		m := map[string]any{}
		for i, x := range ps {
			p := x.(map[string]any)
			p["order"] = float64(i)
			m[fmt.Sprint(p["provider"])] = p
		}
		v["providers"] = m
	}
	if ws, ok := v["warnings"].([]any); ok {
		m := map[string]any{}
		for _, w := range ws {
			m[fmt.Sprint(w)] = true
		}
		v["warnings"] = m
	}
	out := map[string]any{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		switch x := x.(type) {
		case map[string]any:
			if len(x) == 0 {
				out[prefix] = "{}"
			}
			for k, y := range x {
				walk(prefix+"."+k, y)
			}
		case []any:
			if len(x) == 0 {
				out[prefix] = "[]"
			}
			for i, y := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), y)
			}
		default:
			out[prefix] = x
		}
	}
	walk("", v)
	return out
}

// playRun plays agents into a live engine, comparing at checkpoints.
type playRun struct {
	agents      *synth.Agents
	l           *live
	checkpoints int
	sessions    map[string]bool // every session a snapshot listed
	// Bytes of session logs `runway now` read at the checkpoints, with the
	// index and without.
	indexRead, coldRead int64
}

func (p *playRun) checkpoint(label string) burn.Snapshot {
	p.checkpoints++
	s := p.l.sameAsReplay(label)
	p.indexedAsCold(label)
	for _, ss := range s.Sessions {
		p.sessions[string(ss.Provider)+"/"+ss.ID] = true
	}
	return s
}

// indexedAsCold checks that `runway now` at the clock's instant answers the
// same with the index the previous checkpoint's run left in the state
// folder as without one.
func (p *playRun) indexedAsCold(label string) {
	t := p.l.t
	t.Helper()
	at := p.l.clock.Now()
	o := EvalOptions{Now: func() time.Time { return at }}
	cold := p.l.env
	cold.NoIndex = true
	c := cold.Evaluate(context.Background(), o)
	want := c.Snapshot
	p.coldRead += c.Tail.BytesRead
	ev := p.l.env.Evaluate(context.Background(), o)
	if diff := snapshotDiff(ev.Snapshot, want); len(diff) > 0 {
		t.Errorf("%s: with the index, now differs from a cold read:\n  %s", label, strings.Join(diff, "\n  "))
	}
	p.indexRead += ev.Tail.BytesRead
}

// advance plays up to t in steps, the engine's clock following the play.
func (p *playRun) advance(t time.Time, step time.Duration) error {
	for now := p.agents.Now(); now.Before(t); {
		if now = now.Add(step); now.After(t) {
			now = t
		}
		p.l.clock.Set(now)
		if err := p.agents.Play(now); err != nil {
			return err
		}
	}
	return nil
}

func TestLiveEqualsReplay(t *testing.T) {
	longProof(t)
	const (
		sessions = 20
		length   = 80 * time.Minute
		every    = 8 * time.Minute
	)
	start := playStart(length)
	agents, err := synth.NewAgents(t.TempDir(), synth.AgentsOptions{
		Sessions:      sessions,
		Start:         start,
		Seed:          7,
		DayTurnsAfter: 35 * time.Minute,
		SplitEvery:    7,
		ChurnEvery:    4 * time.Minute,
		ResumeAfter:   25 * time.Minute,
		BurnPerHour:   75,
	})
	if err != nil {
		t.Fatal(err)
	}
	// A short lookback, so checkpoints late in the play see cold reads
	// start mid-file and the follower prune.
	env := playEnv(t, agents, time.Hour)
	l := startLive(t, env, start, nil)
	p := &playRun{agents: agents, l: l, sessions: map[string]bool{}}
	p.checkpoint("empty history")

	// Checkpoints land at odd instants: inside streamed responses, between
	// the halves of a split line, right after a truncation.
	for at := start.Add(every + 17*time.Second); at.Before(start.Add(length)); at = at.Add(every) {
		if err := p.advance(at, 3*time.Second); err != nil {
			t.Fatal(err)
		}
		p.checkpoint(fmt.Sprintf("t+%v", at.Sub(start)))
		if t.Failed() {
			break
		}
	}
	st := agents.Stats()
	t.Logf("played %v: %d Claude + %d Codex sessions (%d subagents), %d lines, %d KB; %d split lines, truncated %d, replaced %d, rewritten %d, deleted %d, resumed %d turns, %d new day folders, %d statusline samples, %d limit hits, claude 5h at %.1f%%, codex 5h at %.1f%%; %d checkpoints, %d sessions seen live, live equalled replay at each: %v",
		length, st.ClaudeSessions, st.Codex, st.Subagents, st.Lines, st.Bytes>>10, st.Split, st.Truncated, st.Replaced, st.Rewritten, st.Deleted, st.Resumed, st.DayFolders, st.Samples, st.LimitHits, st.ClaudeUsed, st.CodexUsed, p.checkpoints, len(p.sessions), !t.Failed())
	t.Logf("runway now at the checkpoints read %d KB of logs with the index, %d KB without", p.indexRead>>10, p.coldRead>>10)
	// The play must have exercised what it claims to.
	for name, n := range map[string]int{"split lines": st.Split, "truncations": st.Truncated, "replacements": st.Replaced,
		"rewrites": st.Rewritten, "deletions": st.Deleted, "resumed turns": st.Resumed, "new day folders": st.DayFolders,
		"subagents": st.Subagents, "statusline samples": st.Samples, "limit hits": st.LimitHits} {
		if n == 0 {
			t.Errorf("the play had no %s", name)
		}
	}
	if len(p.sessions) < sessions {
		t.Errorf("snapshots listed %d sessions, want at least %d", len(p.sessions), sessions)
	}
}
