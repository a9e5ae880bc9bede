package runway

// Shared by the package's tests: a world of agent files written in the
// real formats, a running Engine to follow (live), and what compares a live
// snapshot with a cold read of the same files.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
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
// lines written. One instant for the whole test binary, so two worlds made
// on either side of a minute's turn start at the same minute.
func playStart(ahead time.Duration) time.Time {
	return testsBegan.Add(-ahead - time.Hour).UTC().Truncate(time.Minute)
}

var testsBegan = time.Now()

// offlineEnv reads dir/claude and dir/codex and keeps its state in
// dir/state, offline, with nothing of the user's reachable.
func offlineEnv(dir string) Env {
	cfg := DefaultConfig()
	cfg.Offline = true
	home := filepath.Join(dir, "home")
	return Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{filepath.Join(dir, "claude")}, Codex: []string{filepath.Join(dir, "codex")}},
		StateDir:       filepath.Join(dir, "state"),
		Home:           home,
		ClaudeCacheDir: filepath.Join(home, "claude-cache"),
		// Never the real endpoint, whatever a test forgets.
		ClaudeEndpoint: "http://127.0.0.1:1/api/oauth/usage",
		Version:        "test",
	}
}

// playEnv is offlineEnv over the play's folders.
func playEnv(a *synth.Agents, lookback time.Duration) Env {
	env := offlineEnv(filepath.Dir(a.ClaudeDir()))
	env.Config.Lookback = Duration(lookback)
	return env
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

	mu     sync.Mutex
	onSnap func(burn.Snapshot) // extra observer (latency probes)
	logs   logSink
}

// logSink collects what an engine logs.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// matching is the lines logged so far that hold part.
func (l *logSink) matching(part string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.Contains(s, part) {
			out = append(out, s)
		}
	}
	return out
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
		Logf: l.logs.logf,
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

// statusline is the line `runway statusline` prints for stdin at now.
func statusline(e Env, stdin []byte, now time.Time) (string, error) {
	d, err := e.StatuslineData(context.Background(), stdin, now)
	return text.SessionStatusline(d), err
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
	// --at leaves samples dated after it out as not yet written; read live
	// at the same instant they are dated after now, and said to be.
	logged, _, _ := l.env.readLog(at.Add(-sampleHistory))
	stepWarn, stepUnread := clockStepped(logged, at)
	want.Warnings, want.Unread = append(want.Warnings, stepWarn...), append(want.Unread, stepUnread...)
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
	for _, line := range l.logs.matching("") {
		l.t.Logf("engine log: %s", line)
	}
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

// world is a small hand-played history: one Claude session, one Codex
// thread, runway's state folder.
type world struct {
	t                     *testing.T
	dir                   string
	claudeDir, codexDir   string
	stateDir              string
	claude                *synth.Claude
	claudePath            string
	codex                 *synth.Codex
	codexPath             string
	start                 time.Time
	n                     int
	codexReset, weekReset time.Time
}

func newWorld(t *testing.T) *world { return newWorldIn(t, t.TempDir()) }

// newWorldIn makes the world in dir (a child process's test gets it from
// its parent).
func newWorldIn(t *testing.T, dir string) *world {
	w := &world{t: t, dir: dir, claudeDir: filepath.Join(dir, "claude"), codexDir: filepath.Join(dir, "codex"),
		stateDir: filepath.Join(dir, "state"), start: playStart(3 * time.Hour)}
	w.claude = &synth.Claude{SessionID: "5e55a1f0-0000-4000-8000-00000000c1a0", Cwd: "/home/dev/src/shop", Model: "claude-sonnet-4-5-20250929"}
	w.claudePath = filepath.Join(w.claudeDir, "projects", "-home-dev-src-shop", w.claude.SessionID+".jsonl")
	w.codex = &synth.Codex{ThreadID: "0c0dec0d-0000-4000-8000-00000000c0de", Cwd: "/home/dev/src/api", Model: "gpt-5.1-codex"}
	day := w.start.UTC()
	w.codexPath = filepath.Join(w.codexDir, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"),
		"rollout-"+day.Format("2006-01-02T15-04-05")+"-"+w.codex.ThreadID+".jsonl")
	w.codexReset, w.weekReset = w.start.Add(4*time.Hour), w.start.Add(3*24*time.Hour)
	for _, d := range []string{filepath.Dir(w.claudePath), filepath.Dir(w.codexPath), w.stateDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(w.codexPath, w.codex.Meta(w.start))
	return w
}

func (w *world) env() Env { return offlineEnv(w.dir) }

func (w *world) write(path string, lines ...[]byte) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			w.t.Fatal(err)
		}
	}
}

// claudeTurn writes a prompt at at−20s and a streamed response ending at at.
func (w *world) claudeTurn(at time.Time) string {
	w.n++
	msg := fmt.Sprintf("msg_01FAULT%06d", w.n)
	w.write(w.claudePath, w.claude.User(at.Add(-20*time.Second), 300))
	w.write(w.claudePath, w.claude.Response(at, msg, fmt.Sprintf("req_011CFAULT%06d", w.n),
		synth.Usage{Input: 12, Output: 900, CacheCreation: 1500, CacheRead: 40000}, 2, "tool_use")...)
	return msg
}

// codexTurn writes a Codex turn ending at at; used < 0 writes no 5-hour
// window (the rollout then carries no fresh sample).
func (w *world) codexTurn(at time.Time, used float64) {
	var primary *synth.Window
	if used >= 0 {
		primary = &synth.Window{UsedPercent: used, WindowMinutes: 300, ResetsAt: w.codexReset}
	}
	w.write(w.codexPath, w.codex.TurnStart(at.Add(-15*time.Second))...)
	w.write(w.codexPath, w.codex.TokenCount(at, synth.Usage{Input: 9000, CacheRead: 6000, Output: 700}, primary, nil),
		w.codex.TaskComplete(at))
}

// loggedInTo is the world's Env online, Claude logged in with token (a Max
// plan) and asking the usage endpoint at url; no Codex.
func (w *world) loggedInTo(url, token string, now time.Time) Env {
	creds := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":"r","expiresAt":%d,"subscriptionType":"max"}}`,
		token, now.Add(30*24*time.Hour).UnixMilli())
	if err := os.MkdirAll(w.claudeDir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.claudeDir, ".credentials.json"), []byte(creds), 0o600); err != nil {
		w.t.Fatal(err)
	}
	env := w.env()
	env.Config.Offline = false
	env.Config.CodexPath = filepath.Join(w.dir, "no-codex")
	env.ClaudeEndpoint = url + "/api/oauth/usage"
	env.ClaudeClient = &http.Client{Timeout: time.Second}
	return env
}

// hasWarning: the snapshot has a warning containing every part.
func hasWarning(parts ...string) func(burn.Snapshot) bool {
	return func(s burn.Snapshot) bool { return findWarning(s.Warnings, parts...) != "" }
}

func findWarning(ws []string, parts ...string) string {
	for _, w := range ws {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return w
		}
	}
	return ""
}

// DoctorTextForTest is what `runway doctor` prints for e: doctor imports
// this package, so doctor_run_test.go (package runway_test) sets it.
var DoctorTextForTest func(ctx context.Context, e Env, now func() time.Time, askCodex bool, sources []quota.SourceState) string

// doctorLine is one check as doctor prints it: "  !! name  detail", then
// its fix on a line of its own.
type doctorLine struct{ section, mark, name, detail, fix string }

// doctor's marks of a check's state.
const (
	markOK      = "ok"
	markInfo    = "--"
	markWarn    = "!!"
	markProblem = "XX"
)

// doctorSays runs doctor and reads its checks back from the text a person reads.
func doctorSays(e Env, now func() time.Time, askCodex bool, sources []quota.SourceState) ([]doctorLine, string) {
	text := DoctorTextForTest(context.Background(), e, now, askCodex, sources)
	var checks []doctorLine
	section := ""
	for _, line := range strings.Split(text, "\n") {
		rest, isCheck := strings.CutPrefix(line, "  ")
		switch {
		case line == "":
		case !isCheck:
			section = line
		case strings.HasPrefix(strings.TrimLeft(rest, " "), "fix: ") && len(checks) > 0:
			checks[len(checks)-1].fix = strings.TrimPrefix(strings.TrimLeft(rest, " "), "fix: ")
		case len(rest) > 3:
			c := doctorLine{section: section, mark: rest[:2]}
			rest = rest[3:]
			if len(rest) >= 25 && rest[24] == ' ' { // the name column is 24 wide
				c.name, c.detail = strings.TrimRight(rest[:24], " "), rest[25:]
			} else {
				c.name, c.detail, _ = strings.Cut(rest, " ")
			}
			checks = append(checks, c)
		}
	}
	return checks, text
}

func doctorText(env Env, now func() time.Time) string {
	_, text := doctorSays(env, now, false, nil)
	return text
}

// trayDoctorShowsEngine: the tray's doctor shows each account source once,
// as the running engine last saw it (name's detail holding want), calls
// nothing (calls does not move) and says the network is in use.
func trayDoctorShowsEngine(t *testing.T, env Env, l *live, calls func() int64, name, want string) {
	t.Helper()
	before := calls()
	checks, text := doctorSays(env, l.clock.Now, true, l.e.Sources())
	if n := calls(); n != before {
		t.Errorf("the tray's doctor called the endpoint %d times", n-before)
	}
	var found []doctorLine
	for _, c := range checks {
		if c.name == name {
			found = append(found, c)
		}
		if c.name == "network" && strings.Contains(c.detail, "offline") {
			t.Errorf("the tray's doctor says %q of a tray that uses the network", c.detail)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0].detail, want) {
		t.Errorf("the tray's doctor shows %s as %+v, want once with %q:\n%s", name, found, want, text)
	}
}

// doctorCheck runs doctor and returns the first check whose name and
// detail contain the given parts, and doctor's text.
func doctorCheck(t *testing.T, env Env, now func() time.Time, askCodex bool, name string, parts ...string) (doctorLine, string) {
	t.Helper()
	checks, text := doctorSays(env, now, askCodex, nil)
	for _, c := range checks {
		ok := strings.Contains(c.name, name)
		for _, p := range parts {
			ok = ok && strings.Contains(c.detail, p)
		}
		if ok {
			return c, text
		}
	}
	return doctorLine{}, text
}

// requireDoctor: doctor has a check named name, its detail holding parts,
// marked mark.
func requireDoctor(t *testing.T, env Env, now func() time.Time, askCodex bool, mark, name string, parts ...string) {
	t.Helper()
	c, text := doctorCheck(t, env, now, askCodex, name, parts...)
	if c.name == "" {
		t.Errorf("doctor has no %q check with %q:\n%s", name, parts, text)
		return
	}
	if c.mark != mark {
		t.Errorf("doctor: %s is %s (%s), want %s", c.name, c.mark, c.detail, mark)
	}
}

// source is the engine's state of the named account source.
func (l *live) source(name string) quota.SourceState {
	for _, s := range l.e.Sources() {
		if s.Name == name {
			return s
		}
	}
	return quota.SourceState{}
}

// showsAgain waits until p's window shows src's used percent with no
// warning naming name, and checks that sample is in the sample log, for
// every runway process.
func (l *live) showsAgain(p burn.Provider, src burn.Source, used float64, name string) {
	l.t.Helper()
	l.waitFor(string(src)+"'s window", func(s burn.Snapshot) bool {
		for _, x := range s.Providers {
			if x.Provider == p && x.Window != nil && x.Window.Source == src && x.Window.UsedPercent == used {
				return findWarning(s.Warnings, name) == ""
			}
		}
		return false
	})
	log, err := quota.OpenLog(l.env.StateDir)
	if err != nil {
		l.t.Fatal(err)
	}
	logged, _, _ := log.ReadAll(time.Time{})
	if !slices.ContainsFunc(logged, func(s burn.Sample) bool { return s.Source == src && s.UsedPercent == used }) {
		l.t.Errorf("%s's sample is not in the sample log: %+v", src, logged)
	}
}

// stillRunning writes a new Claude turn and waits for the engine to show it.
func (l *live) stillRunning(w *world) {
	l.t.Helper()
	at := l.clock.Now()
	w.claudeTurn(at)
	l.waitFor("a Claude turn written after the fault", func(s burn.Snapshot) bool {
		for _, ss := range s.Sessions {
			if ss.ID == w.claude.SessionID && ss.LastEventAt.Equal(at) {
				return true
			}
		}
		return false
	})
}

// fakeCodex writes a `codex` that speaks the app-server protocol as the
// mode file says: ok, hang (no answer to the rate-limit read), crash (dies
// mid-answer) or garbage (answers junk).
func fakeCodex(t *testing.T, dir string, reset, week time.Time) (path, mode string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake codex is a shell script")
	}
	mode = filepath.Join(dir, "codex-mode")
	path = filepath.Join(dir, "fake-codex")
	script := `#!/bin/sh
[ "$1" = app-server ] || exit 64
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
	case "$line" in
	*'"method":"initialize"'*)
		printf '{"id":%s,"result":{"userAgent":"fake/0.171.0","codexHome":"/nonexistent","platformFamily":"unix","platformOs":"linux"}}\n' "$id" ;;
	*'"method":"account/rateLimits/read"'*)
		case "$(cat ` + mode + `)" in
		ok) printf '{"id":%s,"result":{"rateLimits":{"limitId":"codex","primary":{"usedPercent":42,"windowDurationMins":300,"resetsAt":` + fmt.Sprint(reset.Unix()) + `},"secondary":{"usedPercent":17,"windowDurationMins":10080,"resetsAt":` + fmt.Sprint(week.Unix()) + `},"planType":"plus"}}}\n' "$id" ;;
		hang) ;;
		crash) echo "thread 'main' panicked at fake.rs:1:1" >&2; printf '{"id":%s,"result":{"rateLim' "$id"; exit 3 ;;
		garbage) printf '<html><body>502 Bad Gateway</body></html>\n\0\377\376\n{"id":%s,"result":"not an object"}\n' "$id" ;;
		esac ;;
	esac
done
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, mode
}

func setMode(t *testing.T, path, mode string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(mode+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
