//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dbustest"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// The end-to-end tests run the real `runway tray` (main itself, in a child
// process) on a history in the agents' real formats, on a private session
// bus with an in-test StatusNotifierWatcher and notification server, and
// look at it only as a desktop does: over DBus.

// history is an agent history in temporary folders, written in the real
// formats and appended to as agents and `runway statusline` do.
type history struct {
	t                   *testing.T
	home, claude, codex string
	state, config       string

	sessions map[string]*claudeSession
	rollout  *codexRollout
	samples  *quota.Log
}

type claudeSession struct {
	path string
	w    *synth.Claude
	n    int
}

type codexRollout struct {
	path string
	w    *synth.Codex
	used float64   // the 5-hour window's percent, rising slowly
	last time.Time // the previous turn's time
	// the windows' resets
	reset5h, resetWeek time.Time
}

func newHistory(t *testing.T) *history {
	home := t.TempDir()
	h := &history{
		t:        t,
		home:     home,
		claude:   filepath.Join(home, "claude"),
		codex:    filepath.Join(home, "codex"),
		state:    filepath.Join(home, "state"),
		config:   filepath.Join(home, "config"),
		sessions: map[string]*claudeSession{},
	}
	// Offline: the test history is all there is. No pacing between
	// notifications: the scenario moves through its buckets in seconds.
	h.write(filepath.Join(h.config, "runway", "config.toml"),
		"offline = true\n\n[notifications]\nmin_interval = \"1ms\"\n")
	log, err := quota.OpenLog(h.state)
	if err != nil {
		t.Fatal(err)
	}
	h.samples = log
	return h
}

func (h *history) write(path, content string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// appendLines adds whole lines to a file, as an agent writes its log.
func (h *history) appendLines(path string, lines ...[]byte) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		h.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := f.Write(bytes.Join(lines, nil)); err != nil {
		h.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		h.t.Fatal(err)
	}
}

// respond appends one Claude turn of the project's session: a tool result
// and the response, weighted about tokens.
func (h *history) respond(project string, at time.Time, tokens int64) {
	h.t.Helper()
	s := h.sessions[project]
	if s == nil {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", len(project)*7919, len(h.sessions)+1)
		cwd := "/home/dev/src/" + project
		s = &claudeSession{
			path: filepath.Join(h.claude, "projects", strings.ReplaceAll(cwd, "/", "-"), id+".jsonl"),
			w:    &synth.Claude{SessionID: id, Cwd: cwd, Model: "claude-sonnet-4-5-20250929"},
		}
		h.sessions[project] = s
	}
	s.n++
	u := synth.Usage{Input: tokens / 10, Output: tokens * 4 / 10, CacheCreation: tokens / 2, CacheRead: 20000}
	msg := fmt.Sprintf("msg_01%s%05d", project, s.n)
	lines := [][]byte{s.w.User(at.Add(-3*time.Second), 100)}
	lines = append(lines, s.w.Response(at, msg, "req_011"+msg[6:], u, 2, "tool_use")...)
	h.appendLines(s.path, lines...)
}

// codexTurn appends one Codex turn with its rate limits, the 5-hour window
// moving at about 18 quota minutes an hour.
func (h *history) codexTurn(at time.Time) {
	h.t.Helper()
	r := h.rollout
	if r == nil {
		start := at
		id := "01a2c0de-7e57-7a11-8c0d-e00000000002"
		day := filepath.Join(h.codex, "sessions", start.Format("2006"), start.Format("01"), start.Format("02"))
		r = &codexRollout{
			path:    filepath.Join(day, "rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl"),
			w:       &synth.Codex{ThreadID: id, Cwd: "/home/dev/src/gateway", Model: "gpt-5.1-codex"},
			used:    10,
			reset5h: start.Add(3 * time.Hour).Truncate(time.Second), resetWeek: start.Add(4 * 24 * time.Hour).Truncate(time.Second),
		}
		h.rollout = r
		h.appendLines(r.path, r.w.Meta(start.Add(-time.Second)))
	}
	// One turn every 30 s burns 0.05 % and 13,900 tokens: a steady 18 m/h.
	// A turn sooner or later burns in proportion, so the pace stays the
	// same however the test's steps are scheduled (a loaded machine runs
	// touch() at uneven times; a fixed amount a turn read as a burst).
	part := 1.0
	if !r.last.IsZero() {
		part = min(max(at.Sub(r.last).Seconds()/30, 0), 10)
	}
	r.last = at
	r.used += 0.05 * part
	scaled := func(n int64) int64 { return int64(float64(n) * part) }
	lines := r.w.TurnStart(at.Add(-10 * time.Second))
	lines = append(lines,
		r.w.TokenCount(at, synth.Usage{Input: scaled(8000), CacheRead: scaled(5000), Output: scaled(900)},
			&synth.Window{UsedPercent: r.used, WindowMinutes: 300, ResetsAt: r.reset5h},
			&synth.Window{UsedPercent: 30, WindowMinutes: 10080, ResetsAt: r.resetWeek}),
		r.w.TaskComplete(at.Add(time.Second)))
	h.appendLines(r.path, lines...)
}

// claudeSample appends what `runway statusline` records from Claude Code.
func (h *history) claudeSample(at time.Time, used5h float64, reset5h time.Time) {
	h.t.Helper()
	err := h.samples.Append(
		burn.Sample{ObservedAt: at, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
			UsedPercent: used5h, ResetsAt: reset5h, Source: burn.SourceStatusline},
		burn.Sample{ObservedAt: at, Provider: burn.Claude, Window: burn.Weekly, WindowMinutes: 10080,
			UsedPercent: 20, ResetsAt: reset5h.Add(3 * 24 * time.Hour), Source: burn.SourceStatusline},
	)
	if err != nil {
		h.t.Fatal(err)
	}
}

// env is the child's environment: nothing of the developer's agents, state,
// config or desktop, and the test bus.
func (h *history) env(bus string) []string {
	return childEnv(
		"HOME="+h.home,
		"XDG_CONFIG_HOME="+h.config,
		"XDG_CACHE_HOME="+filepath.Join(h.home, "cache"),
		"CLAUDE_CONFIG_DIR="+h.claude,
		"CODEX_HOME="+h.codex,
		"RUNWAY_STATE_DIR="+h.state,
		"RUNWAY_CLAUDE_CACHE_DIR="+filepath.Join(h.home, "claude-cache"),
		"DBUS_SESSION_BUS_ADDRESS="+bus,
		"TZ=UTC",
		// testscript.Main copies the binary into a temporary folder that
		// main's exit leaves behind: keep it inside the test's.
		"TMPDIR="+h.t.TempDir(),
		// Under -race the child reports races but exits normally: systray
		// has races of its own, and CheckRaces judges the reports.
		"GORACE=exitcode=0 atexit_sleep_ms=0",
	)
}

// runwayProc is `runway tray` running as a child process.
type runwayProc struct {
	cmd          *exec.Cmd
	exited       chan struct{}
	err          error // the exit status, set before exited closes
	lockedBuffer       // stdout and stderr
}

// startRunway runs `runway tray` with args on the history and bus.
func startRunway(t *testing.T, h *history, bus string, args ...string) *runwayProc {
	t.Helper()
	p := startProc(t, h.env(bus), append([]string{"tray"}, args...)...)
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		dbustest.CheckRaces(t, p.String())
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(h.state, "snapshot.json")); err == nil {
				t.Logf("its last snapshot:\n%s", b)
			}
		}
	})
	return p
}

// startProc starts runway with args in env; it is killed at the end of the
// test, and what it said logged when the test failed.
func startProc(t *testing.T, env []string, args ...string) *runwayProc {
	t.Helper()
	p := &runwayProc{cmd: runwayCommand(t, args...), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("runway %s said:\n%s", args[0], p.String())
		}
	})
	return p
}

// waitExit waits for the process to end and returns its exit status.
// terminate sends SIGTERM and returns how runway exited.
func (p *runwayProc) terminate(t *testing.T) error {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return p.waitExit(t)
}

func (p *runwayProc) waitExit(t *testing.T) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(dbustest.Wait):
		t.Fatal("runway did not exit")
		return nil
	}
}

// shows waits until the item's menu rows match the patterns, one a row, in
// order, its label matches label and its tooltip tip (a line per
// provider), with the title "runway" and the label; it returns what it read
// last.
func shows(t *testing.T, conn *dbus.Conn, name, label, tip string, rows ...string) dbustest.Item {
	t.Helper()
	tipRE := regexp.MustCompile("^" + tip + "$")
	labelRE := regexp.MustCompile("^" + label + "$")
	var rowREs []*regexp.Regexp
	for _, r := range append(rows, fixedRows...) {
		rowREs = append(rowREs, regexp.MustCompile("^"+r+"$"))
	}
	var it dbustest.Item
	dbustest.Eventually(t, "the item shows "+tip, func() (bool, string) {
		var err error
		it, err = dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		shown := it.Menu.Shown()
		ok := tipRE.MatchString(it.Tooltip) && labelRE.MatchString(it.Label) && it.Title == "runway "+it.Label && len(shown) == len(rowREs)
		for i := 0; ok && i < len(shown); i++ {
			ok = rowREs[i].MatchString(shown[i])
		}
		return ok, fmt.Sprintf("title %q, label %q, tooltip %q, menu:\n%s\nwant:\n%s", it.Title, it.Label, it.Tooltip, strings.Join(shown, "\n"), strings.Join(append(rows, fixedRows...), "\n"))
	})
	return it
}

// fixedRows end every menu.
var fixedRows = []string{"---", "Copy status line", "Notifications", "Session list", "Open doctor…", "---", "Quit"}

// hasRow reports whether a visible row matches the pattern.
func hasRow(it dbustest.Item, pattern string) bool {
	re := regexp.MustCompile("^" + pattern + "$")
	return slices.ContainsFunc(it.Menu.Shown(), re.MatchString)
}

// Badge colours of the icon (tray/icon.go): green on track, amber when the
// window runs out before its reset, red when low, exhausted or within ten
// minutes of the run-out.
var (
	green = [3]byte{0x2e, 0x7d, 0x32}
	amber = [3]byte{0xb8, 0x5c, 0x00}
	red   = [3]byte{0xc6, 0x28, 0x28}
)

// wantIcon checks the badge of the item's largest icon has the colour of
// the verdict (the figure in it is the label, checked by shows; each size's
// pixels by tray's TestTrayOverDBus).
func wantIcon(t *testing.T, conn *dbus.Conn, name string, want ...[3]byte) {
	t.Helper()
	icons, err := dbustest.ReadIcons(conn, name)
	if err != nil || len(icons) == 0 {
		t.Fatalf("IconPixmap: %d icons, %v", len(icons), err)
	}
	p := icons[len(icons)-1]
	i := 4 * (16*int(p.W) + 1) // (1, 16): badge, left of the figure
	got := [3]byte{p.Pix[i+1], p.Pix[i+2], p.Pix[i+3]}
	if !slices.Contains(want, got) {
		t.Errorf("the icon's badge is % x, want one of % x", got, want)
	}
}

// clock matches how the menu shows an instant: "15:04" on the snapshot's
// day, "Mon 15:04" within the week. The day is optional, so a test that
// runs across midnight still matches.
func clock(t time.Time) string {
	t = t.UTC()
	return "(" + t.Format("Mon") + " )?" + t.Format("15:04")
}

// usedFor is the 5-hour percent to record now for the window to run out
// about runout from now, given the series so far started at u0 at t0 (the
// velocity runs from the oldest sample in its horizon to the newest).
func usedFor(now, t0 time.Time, u0 float64, runout time.Duration) float64 {
	dt, r := now.Sub(t0).Minutes(), runout.Minutes()
	u := (100*dt + r*u0) / (dt + r)
	return float64(int(u*10)) / 10 // statusline's 0.1 % steps
}

// TestTrayEndToEnd is issue 6's acceptance test: the real `runway tray` on
// a live history, seen from the desktop's side of the session bus.
func TestTrayEndToEnd(t *testing.T) {
	bus := dbustest.StartBus(t)
	watcher := dbustest.StartWatcher(t, bus)
	server := dbustest.StartNotifications(t, bus)
	conn := dbustest.Connect(t, bus)
	h := newHistory(t)

	// Fifteen minutes of history up to now: Claude's 5-hour window at
	// 0.1 % a minute (18 m/h, lasts to its reset in two hours), one Claude
	// session and one Codex session burning.
	start := time.Now().Truncate(time.Second)
	reset := start.Add(2 * time.Hour)
	t0, u0 := start.Add(-14*time.Minute), 30.0
	for i := range 15 {
		at := t0.Add(time.Duration(i) * time.Minute)
		h.claudeSample(at, u0+0.1*float64(i), reset)
	}
	for at := start.Add(-5 * time.Minute); !at.After(start); at = at.Add(10 * time.Second) {
		h.respond("alpha", at, 30000)
	}
	for at := start.Add(-10 * time.Minute); !at.After(start); at = at.Add(30 * time.Second) {
		h.codexTurn(at)
	}
	// touch keeps both sessions burning, as live agents do.
	touch := func() {
		now := time.Now()
		h.respond("alpha", now, 30000)
		h.codexTurn(now)
	}

	p := startRunway(t, h, bus)
	name := watcher.WaitRegistered(t)

	claudeResets := clock(reset)
	codexResets := clock(h.rollout.reset5h)
	weekly := func(used int, resets time.Time) string {
		return fmt.Sprintf(`  weekly %d%%( · ~?[\d.]+m/h · lasts at ≤[\d.]+)? · resets %s`, used, clock(resets))
	}
	session := func(project string) string {
		return `    ` + project + ` [\d.]+m/h( · pause → (lasts|\+[0-9a-z]+))?`
	}

	// On track: the figures of both providers, no notification.
	shows(t, conn, name, `~?[\d.]+m/h`, `Claude 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset · resets in .+\nCodex 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset · resets in .+`,
		`Claude 5h `+regexp.QuoteMeta(text.Percent(31.4))+` · resets `+claudeResets,
		`  ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset`,
		weekly(20, reset.Add(3*24*time.Hour)),
		session("alpha"),
		`Codex 5h 1[0-2](\.\d)?% · resets `+codexResets,
		`  ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset`,
		weekly(30, h.rollout.resetWeek),
		session("gateway"),
	)
	wantIcon(t, conn, name, green)

	// A new session's log appears and grows: its row appears.
	now := time.Now()
	h.respond("beta", now.Add(-20*time.Second), 3000)
	h.respond("beta", now.Add(-10*time.Second), 3000)
	touch()
	h.respond("beta", time.Now(), 3000)
	dbustest.Eventually(t, "a row for the new session", func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		return hasRow(it, session("beta")), strings.Join(it.Menu.Shown(), "\n")
	})
	// That row came from a later snapshot than the on-track ones, whose
	// decisions were delivered by then: none.
	if got := server.Received(); len(got) != 0 {
		t.Errorf("notified while on track: %+v", got)
	}

	// The statusline records a steep climb: the window now runs out before
	// its reset, within the hour (the 60-minute bucket), then within half
	// an hour, then ten minutes (critical), then it is exhausted. Each
	// step is one notification replacing the last.
	steps := []struct {
		runout time.Duration
		calls  int
	}{{45 * time.Minute, 1}, {20 * time.Minute, 2}, {5 * time.Minute, 3}}
	for _, st := range steps {
		touch()
		now := time.Now()
		used := usedFor(now, t0, u0, st.runout)
		h.claudeSample(now, used, reset)
		it := shows(t, conn, name, `~?[\d.]+m/h`, `Claude 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · runs out in \d+m · resets in .+\nCodex 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset · resets in .+`,
			`Claude 5h `+regexp.QuoteMeta(text.Percent(used))+` · resets `+claudeResets,
			`  ~?[\d.]+m/h · lasts at ≤[\d.]+ · runs out ([A-Z][a-z]{2} )?\d\d:\d\d, (\d+m|\d+h\d\dm) before the reset`,
			weekly(20, reset.Add(3*24*time.Hour)),
			session("(alpha|beta)"), session("(alpha|beta)"),
			`Codex 5h 1[0-2](\.\d)?% · resets `+codexResets,
			`  ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset`,
			weekly(30, h.rollout.resetWeek),
			session("gateway"),
		)
		if !hasRow(it, `    alpha [\d.]+m/h · pause → .+`) {
			t.Errorf("no pause impact for alpha in:\n%s", strings.Join(it.Menu.Shown(), "\n"))
		}
		if st.runout > 15*time.Minute {
			wantIcon(t, conn, name, amber, red) // red once the 10-minute notice (critical) is out
		} else {
			wantIcon(t, conn, name, red)
		}
		dbustest.Eventually(t, fmt.Sprintf("notification %d", st.calls), func() (bool, string) {
			got := server.Received()
			return len(got) >= st.calls, fmt.Sprintf("%+v", got)
		})
	}
	touch()
	h.claudeSample(time.Now(), 100, reset)
	shows(t, conn, name, `100%`, `Claude 5h 100% · exhausted · resets in .+\nCodex 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset · resets in .+`,
		`Claude 5h 100% · resets `+claudeResets,
		`  exhausted until `+claudeResets,
		weekly(20, reset.Add(3*24*time.Hour)),
		session("(alpha|beta)"), session("(alpha|beta)"),
		`Codex 5h 1[0-2](\.\d)?% · resets `+codexResets,
		`  ~?[\d.]+m/h · lasts at ≤[\d.]+ · on track to the reset`,
		weekly(30, h.rollout.resetWeek),
		session("gateway"),
	)
	wantIcon(t, conn, name, red)

	// Quit over DBus: a clean exit, every decision delivered by then.
	dbustest.ClickLabel(t, conn, name, "Quit")
	if err := p.waitExit(t); err != nil {
		t.Fatalf("runway exited with %v after Quit", err)
	}
	checkNotices(t, server.Received(), claudeResets)

	// A restart on the same state folder remembers what it sent: nothing
	// again. A new session shows it has read everything since.
	p2 := startRunway(t, h, bus)
	name2 := watcher.WaitRegistered(t)
	touch()
	h.respond("gamma", time.Now().Add(-10*time.Second), 3000)
	h.respond("gamma", time.Now(), 3000)
	dbustest.Eventually(t, "the restarted tray shows the exhausted window and the new session", func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name2)
		if err != nil {
			return false, err.Error()
		}
		ok := strings.HasPrefix(it.Tooltip, "Claude 5h 100% · exhausted · resets in ") && hasRow(it, `    gamma .*`)
		return ok, it.Tooltip + "\n" + strings.Join(it.Menu.Shown(), "\n")
	})
	// SIGTERM: a clean exit too.
	if err := p2.terminate(t); err != nil {
		t.Fatalf("runway exited with %v on SIGTERM", err)
	}
	checkNotices(t, server.Received(), claudeResets)
}

// checkNotices checks the scenario's notifications: one per urgency bucket
// and one when exhausted, each replacing the last, critical from the
// 10-minute bucket on.
func checkNotices(t *testing.T, got []dbustest.NotifyCall, resets string) {
	t.Helper()
	span := `(\d+m|\d+h\d\dm)`
	runout := `Claude 5h runs out (in ` + span + `|now) — ([A-Z][a-z]{2} )?\d\d:\d\d, ` + span + ` before the reset`
	top := `alpha burns [\d.]+m/h(; pausing it (lasts to the reset|buys [^.]+))?\. The window burns ~?[\d.]+m/h; up to [\d.]+m/h lasts to the reset\.`
	want := []struct {
		call          dbustest.NotifyCall
		summary, body string
	}{
		{dbustest.NotifyCall{Replaces: 0, Icon: "dialog-warning", Urgency: 1}, runout, top},
		{dbustest.NotifyCall{Replaces: 1, Icon: "dialog-warning", Urgency: 1}, runout, top},
		{dbustest.NotifyCall{Replaces: 1, Icon: "dialog-error", Urgency: 2}, runout, top},
		{dbustest.NotifyCall{Replaces: 1, Icon: "dialog-error", Urgency: 2}, `Claude 5h is exhausted, resets in ` + span + ` — ` + resets,
			`Agents on this account stall until the reset\.`},
	}
	if len(got) != len(want) {
		t.Fatalf("%d notifications, want %d:\n%+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		w.call.App, w.call.ImageW, w.call.Timeout = "runway", 64, -1
		w.call.Summary, w.call.Body = g.Summary, g.Body
		if g != w.call ||
			!regexp.MustCompile("^"+w.summary+"$").MatchString(g.Summary) ||
			!regexp.MustCompile("^"+w.body+"$").MatchString(g.Body) {
			t.Errorf("notification %d:\n got %+v\nwant %+v, summary %s, body %s", i+1, g, w.call, w.summary, w.body)
		}
	}
}

// TestTrayDemo: `runway tray --demo` shows the tray on the built-in sample
// history with none of the user's: the icon, label and menu of a 5-hour
// window running out.
func TestTrayDemo(t *testing.T) {
	bus := dbustest.StartBus(t)
	watcher := dbustest.StartWatcher(t, bus)
	dbustest.StartNotifications(t, bus)
	conn := dbustest.Connect(t, bus)
	h := newHistory(t) // empty: the demo must not read it
	p := startRunway(t, h, bus, "--demo")
	name := watcher.WaitRegistered(t)
	dbustest.Eventually(t, "the demo's figures", func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		ok := regexp.MustCompile(`^~?[\d.]+m/h$`).MatchString(it.Label) &&
			regexp.MustCompile(`^Claude 5h [\d.]+% · ~?[\d.]+m/h · lasts at ≤[\d.]+ · runs out in `).MatchString(it.Tooltip) &&
			hasRow(it, `    shop-api .*`)
		return ok, it.Label + " | " + it.Tooltip + "\n" + strings.Join(it.Menu.Shown(), "\n")
	})
	wantIcon(t, conn, name, amber, red)
	if !strings.Contains(p.String(), "demo: showing the built-in sample history") {
		t.Errorf("runway did not say it shows the demo: %s", p.String())
	}
	if _, err := os.Stat(filepath.Join(h.state, "snapshot.json")); err == nil {
		t.Error("the demo wrote into the user's state folder")
	}
	dbustest.ClickLabel(t, conn, name, "Quit")
	if err := p.waitExit(t); err != nil {
		t.Fatalf("runway exited with %v after Quit", err)
	}
}
