// Package doctor is `runway doctor`: how everything runway reads is, through
// the root package's Env, with each problem's fix. It never prints a secret.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/internal/statedir"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// Check is one line of `runway doctor`.
type Check struct {
	Name   string `json:"name"`
	State  string `json:"state"` // ok, info, warn or problem
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

const (
	CheckOK      = "ok"
	CheckInfo    = "info"
	CheckWarn    = "warn"
	CheckProblem = "problem"
)

type Section struct {
	Title  string  `json:"title"`
	Checks []Check `json:"checks"`
}

// Options shape a doctor run.
type Options struct {
	Now        func() time.Time
	ConfigPath string // the settings' file (shown, not re-read)
	ConfigErr  error  // why that file could not be used: a problem, and the defaults apply
	AskCodex   bool   // start the Codex app-server once to show its state
	// Sources, when set, are a running engine's (the tray's own doctor):
	// shown in place of asking the back ends afresh.
	Sources []quota.SourceState
	Desktop *Desktop // when the desktop was looked at
}

// Desktop is what a probe of the desktop found: nil errors mean found.
type Desktop struct {
	// Present: a graphical session runs here; without one, no tray host
	// or notification server is a fact, not a fault.
	Present                 bool
	TrayHost, Notifications error
	NotifyServer            string
}

// Run looks at everything runway reads and says, for each problem, the fix.
func Run(ctx context.Context, e runway.Env, o Options) []Section {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	at := now()
	out := []Section{settingsSection(e, o)}

	// A running tray already asks the back ends at their pace: show its view.
	traySources, trayRuns := e.TraySources(at)
	if o.Sources == nil && trayRuns {
		o.Sources = traySources
	}
	var codex []Check
	var codexSamples []burn.Sample
	if o.AskCodex && o.Sources == nil {
		var c Check
		c, codexSamples = codexCheck(ctx, e, at)
		codex = []Check{c}
	}
	live := !e.Config.Offline && o.Sources == nil
	ev := e.Evaluate(ctx, runway.EvalOptions{Now: func() time.Time { return at }, Live: live, LiveTimeout: 10 * time.Second, Samples: codexSamples})
	out = append(out, logSections(e, ev.Tail, at)...)
	out = append(out, sourcesSection(ctx, e, o, ev.Sources, codex, at), windowsSection(ev.Snapshot, at), remoteSection(ctx, e, at))
	return append(out, traySection(e, o, ev.Snapshot.Warnings, trayRuns, at))
}

// settingsSection: the config, the state folder and the network, on which
// every later figure depends.
func settingsSection(e runway.Env, o Options) Section {
	settings := Section{Title: "settings"}
	switch {
	case o.ConfigErr != nil:
		settings.Checks = append(settings.Checks, Check{"config", CheckProblem, o.ConfigErr.Error() + "; the checks below use the defaults", "fix what it names, then run runway doctor again"})
	case o.ConfigPath != "":
		if _, err := os.Stat(o.ConfigPath); err == nil {
			settings.Checks = append(settings.Checks, Check{"config", CheckOK, o.ConfigPath, ""})
		} else {
			settings.Checks = append(settings.Checks, Check{"config", CheckInfo, o.ConfigPath + " not present: defaults", ""})
		}
	}
	network := "allowed when local sources are not fresh (paced)"
	if e.Config.Offline {
		network = "offline: no endpoint is called"
	}
	settings.Checks = append(settings.Checks, stateCheck(e), Check{"network", CheckInfo, network, ""})
	return settings
}

// sourcesSection: each account source as this run (or the tray) saw it, then
// the Claude login, the statusline and the Codex app-server.
func sourcesSection(ctx context.Context, e runway.Env, o Options, evaluated []quota.SourceState, codex []Check, at time.Time) Section {
	sources := Section{Title: "account sources"}
	seen := evaluated
	if o.Sources != nil {
		sources.Title = "account sources, as the tray sees them"
		seen = o.Sources
	}
	for _, s := range seen {
		sources.Checks = append(sources.Checks, sourceCheck(s, at, o.Sources != nil))
	}
	login := e.ClaudeLogin(ctx, at)
	sources.Checks = append(sources.Checks, sourceCheck(login, at, false), statuslineCheck(e))
	sources.Checks = append(append(sources.Checks, loginsCheck(e)...), codex...)
	return sources
}

// windowsSection: what runway shows per window and how fresh, or why none.
func windowsSection(snap burn.Snapshot, at time.Time) Section {
	windows := Section{Title: "windows (what runway now shows)"}
	for _, p := range snap.Providers {
		for _, w := range []*burn.WindowStatus{p.Window, p.Weekly} {
			if w == nil || (w == p.Weekly && p.Window != nil && p.Window.Class == w.Class) {
				continue
			}
			c := Check{Name: p.Name() + " " + string(w.Class), State: CheckOK,
				Detail: fmt.Sprintf("%s used, from %s, %s old", text.Percent(w.UsedPercent), w.Source, text.Span(at.Sub(w.ObservedAt)))}
			if !w.Fresh {
				c.State = CheckWarn
				c.Fix = freshnessFix(p.Provider)
			}
			windows.Checks = append(windows.Checks, c)
		}
	}
	if len(windows.Checks) == 0 {
		windows.Checks = append(windows.Checks, noWindowChecks(snap)...)
	} else if v, why := burn.Gate(snap); v == burn.CannotTell {
		// Windows that last say nothing of what the gate cannot see.
		windows.Checks = append(windows.Checks, Check{"runway now --check", CheckWarn, "exits 3: cannot tell: " + why, ""})
	}
	for _, w := range snap.Warnings {
		if !runway.IsLogsWarning(w) {
			windows.Checks = append(windows.Checks, Check{"warning", CheckWarn, w, ""})
		}
	}
	return windows
}

// traySection: whether the tray runs, the warnings only it has (not in
// shown), and the desktop.
func traySection(e runway.Env, o Options, shown []string, trayRuns bool, at time.Time) Section {
	tray := Section{Title: "tray"}
	if s, ok := e.LatestSnapshot(at); ok {
		tray.Checks = append(tray.Checks, Check{"tray", CheckOK, fmt.Sprintf("running (snapshot %s old)", text.Span(at.Sub(s.At))), ""})
		for _, w := range s.Warnings {
			if !slices.Contains(shown, w) && !runway.IsLogsWarning(w) {
				tray.Checks = append(tray.Checks, Check{"tray warning", CheckWarn, w, ""})
			}
		}
	} else if trayRuns {
		tray.Checks = append(tray.Checks, Check{"tray", CheckOK, "running (idle: no snapshot in the last " + text.Span(runway.SnapshotFresh) + ")", ""})
	} else if o.Desktop != nil && !o.Desktop.Present {
		tray.Checks = append(tray.Checks, Check{"tray", CheckInfo, "not running", ""})
	} else {
		tray.Checks = append(tray.Checks, Check{"tray", CheckInfo, "not running", trayStartFix(runtime.GOOS)})
	}
	if o.Desktop != nil {
		tray.Checks = append(tray.Checks, desktopChecks(*o.Desktop)...)
	}
	return tray
}

// desktopChecks: whether the desktop shows the icon and notifications;
// without a desktop, once and as a fact.
func desktopChecks(d Desktop) []Check {
	if !d.Present {
		return []Check{{"desktop", CheckInfo, "none on this machine (no DISPLAY or WAYLAND_DISPLAY): no tray icon or desktop notifications here; " +
			"runway watch is the live view in a terminal, runway serve keeps the figures and prints notices without one", ""}}
	}
	if d.TrayHost != nil && d.Notifications != nil && strings.HasSuffix(d.TrayHost.Error(), d.Notifications.Error()) {
		return []Check{{"tray host, notifications", CheckWarn, d.Notifications.Error(),
			"run runway inside the desktop session (it needs the session bus its DBUS_SESSION_BUS_ADDRESS names)"}}
	}
	host := Check{Name: "tray host", State: CheckOK, Detail: "found"}
	if d.TrayHost != nil {
		host = Check{"tray host", CheckWarn, d.TrayHost.Error(),
			"run a desktop with a StatusNotifierItem tray (KDE, XFCE, or GNOME with the AppIndicator extension); without one runway runs as a notifier"}
	}
	notify := Check{Name: "notifications", State: CheckOK, Detail: d.NotifyServer}
	if d.Notifications != nil {
		notify = Check{"notifications", CheckWarn, d.Notifications.Error(), "run a notification daemon (most desktops have one; dunst or mako elsewhere)"}
	}
	return []Check{host, notify}
}

// trayStartFix: a Windows terminal has no `&`, and there the tray leaves
// the terminal by itself.
func trayStartFix(goos string) string {
	if goos == "windows" {
		return "start it with `runway tray` (it leaves the terminal and keeps running), or at login with `runway autostart on`"
	}
	return "start it with `runway tray &`, or at login with `runway autostart on`"
}

// noWindowChecks gives each provider found its own fix: a Codex-only user
// is told about Codex, not Claude Code's statusline.
func noWindowChecks(s burn.Snapshot) []Check {
	var out []Check
	for _, p := range s.Providers {
		out = append(out, Check{p.Name() + " windows", CheckWarn, "no account percent from any source", freshnessFix(p.Provider)})
	}
	if len(out) == 0 {
		out = append(out, Check{"windows", CheckWarn, "no account percent from any source", freshnessFix(burn.Claude)})
	}
	return out
}

func freshnessFix(p burn.Provider) string {
	if p == burn.Codex {
		return "Codex writes its percent with every turn; the tray also asks `codex app-server` (needs `codex login`)"
	}
	return "run `runway setup` (it makes `runway statusline` Claude Code's statusLine), or keep the tray running"
}

// stateCheck: whether the state folder keeps its rules (statedir.Ensure),
// takes a write and holds a readable sample log.
func stateCheck(e runway.Env) Check {
	note, err := statedir.Ensure(e.StateDir)
	if err != nil {
		detail := err.Error()
		if errors.Is(err, statedir.ErrUntrusted) {
			detail = "refused: " + detail
		}
		return Check{"state", CheckProblem, detail, "point RUNWAY_STATE_DIR at a folder you own"}
	}
	if _, _, err := quota.LogIn(e.StateDir).ReadAll(time.Now()); err != nil {
		return Check{"state", CheckProblem, err.Error(), "make the sample log readable (and yours), or remove it; until then runway now --check exits 3"}
	}
	var f *os.File
	if f, err = os.CreateTemp(e.StateDir, ".doctor-*"); err == nil {
		// A full disk still lets an empty file be made: write something.
		_, werr := f.Write([]byte("runway doctor\n"))
		err = errors.Join(werr, f.Sync(), f.Close())
		os.Remove(f.Name())
	}
	if err != nil {
		return Check{"state", CheckProblem, fmt.Sprintf("%s: readable, but runway cannot record in it: %v", e.StateDir, err),
			"make it writable, or point RUNWAY_STATE_DIR at a folder you own"}
	}
	if foreign := e.ForeignState(); len(foreign) > 0 {
		return Check{"state", CheckWarn, strings.Join(foreign, "; "), "remove what it names"}
	}
	if note != "" {
		return Check{"state", CheckWarn, note, ""}
	}
	return Check{"state", CheckOK, e.StateDir, ""}
}

// logSections: each root's files, how many inside the lookback, the newest.
func logSections(e runway.Env, st tail.Stats, at time.Time) []Section {
	byProvider := map[burn.Provider]*Section{
		burn.Claude: {Title: "Claude Code logs"},
		burn.Codex:  {Title: "Codex logs"},
	}
	total := 0
	for _, r := range st.Roots {
		sec := byProvider[r.Provider]
		if sec == nil {
			continue
		}
		dir := runway.ShortPath(r.Dir, e.Home)
		switch {
		case e.MissingRoot(r):
			sec.Checks = append(sec.Checks, Check{dir, CheckWarn, "not present, but named in [roots]: its logs are not counted", "fix the path in the config file's [roots]"})
		case !r.Exists:
			sec.Checks = append(sec.Checks, Check{dir, CheckInfo, "not present", ""})
		case r.Files == 0:
			sec.Checks = append(sec.Checks, Check{dir, CheckInfo, "no session files", ""})
		default:
			total += r.Files
			d := fmt.Sprintf("%s, %d touched in the last %s", plural(r.Files, "session file"), r.InWindow, text.Span(time.Duration(e.Config.Lookback)))
			if r.Newest != "" {
				d += fmt.Sprintf("; newest %s ago (%s)", text.Span(at.Sub(r.NewestMod)), filepath.Base(r.Newest))
			}
			sec.Checks = append(sec.Checks, Check{dir, CheckOK, d, ""})
		}
		if r.Zst > 0 {
			sec.Checks = append(sec.Checks, Check{dir, CheckWarn, fmt.Sprintf("%d compressed rollouts (.jsonl.zst) not read", r.Zst), "runway does not read compressed rollouts yet"})
		}
	}
	if total == 0 {
		c := byProvider[burn.Claude]
		c.Checks = append(c.Checks, Check{"logs", CheckProblem, "no Claude Code or Codex session files found",
			"use Claude Code or Codex once, or set CLAUDE_CONFIG_DIR / CODEX_HOME (or [roots] in the config) to where your logs are; `runway demo` shows what runway does"})
	}
	for _, w := range st.Warnings {
		c := byProvider[burn.Claude]
		c.Checks = append(c.Checks, Check{"warning", CheckWarn, w, ""})
	}
	return []Section{*byProvider[burn.Claude], *byProvider[burn.Codex]}
}

// sourceCheck is an account source's line; running says it is the tray's,
// which asks again on its own (when is nothing to a one-shot reader).
func sourceCheck(s quota.SourceState, at time.Time, running bool) Check {
	c := Check{Name: s.Name, Detail: s.Detail, Fix: s.Fix}
	switch {
	case s.State == quota.StateOK:
		c.State = CheckOK
	case s.NeedsLook():
		c.State = CheckWarn
	default:
		c.State = CheckInfo
	}
	switch {
	case c.Detail == "":
		c.Detail = string(s.State)
	case s.State != quota.StateOK:
		c.Detail = string(s.State) + ": " + c.Detail
	}
	if running && s.State == quota.StateOK && !s.ObservedAt.IsZero() {
		c.Detail += fmt.Sprintf(" (%s ago)", text.Span(at.Sub(s.ObservedAt)))
	}
	if running && s.NeedsLook() && s.NextTry.After(at) {
		c.Detail += " (the tray asks again at " + text.Clock(s.NextTry, at, time.Local) + ")"
	}
	return c
}

// statuslineCheck: whether Claude Code runs `runway statusline` and how sure
// that is: the command itself, a command calling it, or a script naming it.
func statuslineCheck(e runway.Env) Check {
	c := Check{Name: "claude statusline setup"}
	settings, cmd := quota.StatuslineSetting(e.Roots.Claude)
	where := runway.ShortPath(settings, e.Home)
	if settings == "" {
		where = "~/.claude/settings.json"
	}
	wrap := fmt.Sprintf(`run runway setup (it wraps it in %s: "command": "runway statusline --then '%s'")`, where, cmd)
	if cmd == "" {
		c.State, c.Detail = CheckInfo, "not installed"
		c.Fix = "run runway setup (it adds runway statusline to " + where + ")"
		return c
	}
	shown := clean(cmd, 120)
	words := strings.Fields(cmd)
	for len(words) > 0 && assignment().MatchString(words[0]) {
		words = words[1:] // VAR=value before the command
	}
	first := ""
	if len(words) > 0 {
		first = expandHome(strings.Trim(words[0], `'"`), e.Home)
	}
	switch {
	case isRunway(first) && len(words) > 1 && words[1] == "statusline":
		c.State, c.Detail = CheckOK, fmt.Sprintf("installed in %s: Claude Code runs %q itself (certain)", where, shown)
	case callRunway().MatchString(cmd):
		c.State, c.Detail = CheckOK, fmt.Sprintf("installed in %s: Claude Code runs %q, which calls runway statusline (likely: read from the command, not run)", where, shown)
	default:
		script, ok := readScript(first)
		switch {
		case ok && callRunway().MatchString(script):
			c.State, c.Detail = CheckOK, fmt.Sprintf("installed in %s: Claude Code runs the script %s, which calls runway statusline (likely: read from the script, not run)", where, clean(runway.ShortPath(first, e.Home), 120))
		case ok:
			c.State, c.Detail = CheckWarn, fmt.Sprintf("Claude Code runs the script %s (%s); runway statusline is not in it, so runway gets no samples from it", clean(runway.ShortPath(first, e.Home), 120), where)
			c.Fix = wrap
		default:
			c.State, c.Detail = CheckInfo, fmt.Sprintf("Claude Code runs %q (%s); runway cannot tell whether it calls runway statusline", shown, where)
			c.Fix = wrap
		}
	}
	return c
}

// callRunway finds runway statusline called in a command or a script: the
// word runway (or a path ending in it) followed by statusline.
var callRunway = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;|&('"/\\])runway(\.exe)?['"]?\s+statusline\b`)
})

// assignment is a VAR=value word before a command.
var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// isRunway says whether a command's first word is runway itself.
func isRunway(word string) bool {
	base := filepath.Base(strings.ReplaceAll(word, "\\", "/"))
	return base == "runway" || strings.EqualFold(base, "runway.exe")
}

// clean is text from a file made printable and cut to n bytes.
func clean(s string, n int) string {
	s = printable.String(s)
	if c := printable.Cut(s, n); c != s {
		return c + "…"
	}
	return s
}

func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[1:])
	}
	return p
}

// readScript reads up to 64 KiB of a regular file (never a blocking FIFO).
func readScript(path string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return string(b), err == nil
}

// codexCheck asks the Codex app-server once; its windows count below.
func codexCheck(ctx context.Context, e runway.Env, at time.Time) (Check, []burn.Sample) {
	timeout := e.CodexTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	a := &quota.AppServer{Path: e.Config.CodexPath, Offline: e.Config.Offline, Version: e.Version, Timeout: timeout,
		Now: func() time.Time { return at }}
	defer a.Close()
	samples, err := a.Read(ctx)
	s := a.State()
	if errors.Is(err, quota.ErrNoCodex) {
		return Check{quota.NameCodexRPC, CheckInfo, "codex not found on PATH: Codex's percent comes from its rollouts only", "set codex_path in the config if it is installed elsewhere"}, nil
	}
	return sourceCheck(s, at, false), samples
}

// Problems counts the checks in the problem state.
func Problems(sections []Section) int {
	n := 0
	for _, s := range sections {
		for _, c := range s.Checks {
			if c.State == CheckProblem {
				n++
			}
		}
	}
	return n
}

// Render prints doctor's sections for people.
func Render(sections []Section) string {
	var b strings.Builder
	problems := 0
	for _, s := range sections {
		fmt.Fprintf(&b, "%s\n", s.Title)
		for _, c := range s.Checks {
			mark := map[string]string{CheckOK: "ok", CheckInfo: "--", CheckWarn: "!!", CheckProblem: "XX"}[c.State]
			// Names, paths and warnings come from files.
			fmt.Fprintf(&b, "  %-2s %-24s %s\n", mark, printable.String(c.Name), printable.String(c.Detail))
			if c.Fix != "" && c.State != CheckOK {
				fmt.Fprintf(&b, "     %-24s fix: %s\n", "", printable.String(c.Fix))
			}
			if c.State == CheckProblem || c.State == CheckWarn {
				problems++
			}
		}
	}
	if problems == 0 {
		b.WriteString("\nno problems found\n")
	} else {
		fmt.Fprintf(&b, "\n%d to look at (!! warning, XX problem)\n", problems)
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// loginsCheck: with several Claude logins, which label is which.
func loginsCheck(e runway.Env) []Check {
	logins := e.ClaudeLogins()
	if len(logins) < 2 {
		return nil
	}
	var parts []string
	for _, a := range logins {
		if a.Label == a.ID {
			parts = append(parts, a.ID)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", a.Label, a.ID))
	}
	return []Check{{"claude logins", CheckInfo, fmt.Sprintf("%d logins, each with its own windows: %s", len(logins), strings.Join(parts, ", ")), ""}}
}
