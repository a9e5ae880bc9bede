package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/internal/selfexe"
	"github.com/agentrunway/runway/setup"
	"github.com/agentrunway/runway/tray"
)

const setupHelp = `Usage: runway setup [--yes] [--undo]

Wires runway into Claude Code: in each Claude Code config folder (~/.claude,
the folders in CLAUDE_CONFIG_DIR, ~/.claude-*, ~/.config/claude) it sets
settings.json's statusLine to "runway statusline", which records your
account's percent after every message. A statusline you have keeps running:
runway's wraps it with --then, and your line is shown first. A copy of the
file goes beside it (settings.json.runway-backup), the file is replaced at
once, and every other setting stays as it was, byte for byte. A file Claude
Code would not read (comments, invalid JSON), a read-only file and a symlink
are left as they are, with the reason.

Codex needs no change: runway reads its session logs and writes nothing there.

This is the one place runway writes into an agent's folder, and only when
asked: at a terminal it shows the plan and asks; --yes does it without
asking (for scripts); anywhere else it only shows the plan.

--undo puts back what setup changed.

Flags:
`

func (c *cli) setup(args []string) error {
	fs := c.flags("setup", setupHelp)
	yes := fs.Bool("yes", false, "make the changes without asking")
	undo := fs.Bool("undo", false, "put back what runway setup changed")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	env, err := c.env(false)
	if err != nil {
		return err
	}
	folders := setup.ClaudeFolders(env.Roots.Claude, env.Home)
	short := func(p string) string { return runway.ShortPath(p, env.Home) }
	changes, err := c.planSetup(folders, *undo)
	if err != nil {
		return err
	}
	todo := c.printSetupPlan(env, folders, changes, short)
	c.codexLines(env, short)

	failed := 0
	for _, ch := range changes {
		if ch.Err != nil {
			failed++
		}
	}
	switch {
	case todo == 0:
		fmt.Fprintln(c.stdout, "Nothing to change.")
	case !*yes && !atTerminal(c.stdin):
		fmt.Fprintln(c.stdout, "Nothing written: stdin is not a terminal to ask at. Run \"runway setup"+undoFlag(*undo)+" --yes\" to make these changes.")
		return nil
	case !*yes && !c.ask("Make these changes? [y/N] "):
		fmt.Fprintln(c.stdout, "Nothing written.")
		return nil
	default:
		failed += c.applySetup(changes, short)
	}
	if !*undo {
		c.setupNext(*yes)
	}
	if failed > 0 {
		return errorWithHint(fmt.Errorf("setup: %d settings.json left as they were (the reason is beside each above)", failed),
			"fix what it says, then run \"runway setup"+undoFlag(*undo)+"\" again")
	}
	return nil
}

// planSetup is the change to each Claude config folder, setting runway's
// statusline or, with undo, putting back what was there; it first says,
// in one line, what the changes do.
func (c *cli) planSetup(folders []string, undo bool) ([]setup.Change, error) {
	exe, err := selfexe.Path()
	if err != nil {
		return nil, err
	}
	program, why, perr := setup.Program(exec.LookPath, exe)
	var changes []setup.Change
	switch {
	case undo:
		if perr != nil {
			program = "runway" // a go run binary still knows runway's commands by name
		}
		for _, d := range folders {
			changes = append(changes, setup.PlanUndo(d, program))
		}
		if len(folders) > 0 {
			fmt.Fprintln(c.stdout, "Claude Code: runway statusline comes out of statusLine, and what was there before comes back.")
		}
	case perr != nil:
		return nil, perr
	default:
		for _, d := range folders {
			changes = append(changes, setup.Plan(d, program))
		}
		if len(folders) > 0 {
			fmt.Fprintf(c.stdout, "Claude Code: statusLine runs %q after every message, the freshest figure of your account's percent (%s).\n", program+" statusline", why)
		}
	}
	return changes, nil
}

// printSetupPlan says, per folder, what will change (or why not), and
// where runway looked when it found none; todo counts the real changes.
func (c *cli) printSetupPlan(env runway.Env, folders []string, changes []setup.Change, short func(string) string) (todo int) {
	if len(folders) == 0 {
		fmt.Fprintf(c.stdout, "Claude Code: no config folder found (looked in %s and ~/.claude-*): run Claude Code once, or set CLAUDE_CONFIG_DIR, then runway setup again.\n",
			strings.Join(mapStrings(slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(env.Roots.Claude), filepath.Join(env.Home, ".claude"))))), short), ", "))
	}
	for _, d := range missingRoots(env, folders) {
		fmt.Fprintf(c.stdout, "  %s: no such folder: skipped\n", short(d))
	}
	for _, ch := range changes {
		fmt.Fprintf(c.stdout, "  %s: %s\n", short(ch.Settings), planLine(ch, short))
		if ch.Action != setup.Keep {
			todo++
		}
	}
	return todo
}

// applySetup makes each change, saying per folder whether it was made;
// it returns how many failed, so setup exits non-zero.
func (c *cli) applySetup(changes []setup.Change, short func(string) string) (failed int) {
	for _, ch := range changes {
		if ch.Action == setup.Keep {
			continue
		}
		if err := ch.Do(); err != nil {
			failed++
			fmt.Fprintf(c.stdout, "  %s: not changed: %v\n", short(ch.Settings), err)
			continue
		}
		fmt.Fprintf(c.stdout, "  %s: done\n", short(ch.Settings))
	}
	return failed
}

// planLine says what a change will do, or why it will not.
func planLine(ch setup.Change, short func(string) string) string {
	switch {
	case ch.Err != nil:
		return "left as it is: " + ch.Err.Error()
	case ch.Action == setup.Keep:
		return ch.Note + ": nothing to change"
	case ch.Action == setup.Create:
		return fmt.Sprintf("create it, with statusLine running %q", ch.New)
	case ch.Action == setup.Edit && ch.Outcome == setup.Chained:
		return fmt.Sprintf("keep your statusline, with runway's line after its output: %q (copy kept at %s)", ch.New, short(ch.Backup()))
	case ch.Action == setup.Edit:
		return fmt.Sprintf("set statusLine to %q (copy kept at %s)", ch.New, short(ch.Backup()))
	case ch.Action == setup.Restore:
		return "put back the copy from before setup" + statusWas(ch.New)
	case ch.Action == setup.Delete:
		return "remove it: runway setup created it"
	case ch.Outcome == setup.Unchained:
		return fmt.Sprintf("take runway off your statusline: %q%s", ch.New, noteAfter(ch.Note))
	}
	return "take runway's statusLine out" + noteAfter(ch.Note)
}

func statusWas(cmd string) string {
	if cmd == "" {
		return " (no statusLine)"
	}
	return fmt.Sprintf(" (statusLine %q)", cmd)
}

func noteAfter(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

func undoFlag(undo bool) string {
	if undo {
		return " --undo"
	}
	return ""
}

// missingRoots are the Claude folders runway was told to read (CLAUDE_CONFIG_DIR,
// [roots]) that do not exist: a typo there is worth a line. ~/.config/claude
// and ~/.claude are usually absent and go unsaid.
func missingRoots(env runway.Env, found []string) []string {
	var out []string
	for _, d := range env.Roots.Claude {
		if slices.Contains(found, d) || d == filepath.Join(env.Home, ".claude") || filepath.Base(d) == "claude" && filepath.Base(filepath.Dir(d)) == ".config" {
			continue
		}
		if _, err := os.Stat(d); err != nil {
			out = append(out, d)
		}
	}
	return out
}

// codexLines says what runway reads in each Codex home: Codex needs no
// setting for runway to see its sessions and limits.
func (c *cli) codexLines(env runway.Env, short func(string) string) {
	found := false
	for _, h := range env.Roots.Codex {
		if fi, err := os.Stat(h); err != nil || !fi.IsDir() {
			continue
		}
		found = true
		fmt.Fprintf(c.stdout, "Codex (%s): nothing to change: runway reads its session logs (sessions/, archived_sessions/) for each session's burn and the account's windows (and asks codex app-server when they are stale); it writes nothing there.\n", short(h))
	}
	if !found {
		fmt.Fprintf(c.stdout, "Codex: no home found (%s): nothing to change; runway reads it once Codex has run.\n", strings.Join(mapStrings(env.Roots.Codex, short), ", "))
	}
}

// setupNext offers what comes after the statusline: the tray at login on a
// desktop, the terminal and server views elsewhere.
func (c *cli) setupNext(yes bool) {
	ctx, cancel := context.WithTimeout(c.ctx, 3*time.Second)
	desktop := tray.Probe(ctx).TrayHost == nil
	cancel()
	if !desktop {
		fmt.Fprintln(c.stdout, "No desktop tray here: \"runway watch\" is the live view in a terminal; \"runway serve\" keeps the figures without one (and receives other machines'); \"runway now\" prints one line.")
		return
	}
	if st, err := tray.Autostart("status", tray.AutostartOptions{}); err == nil && strings.HasPrefix(st, "autostart on") {
		fmt.Fprintln(c.stdout, "The tray starts at login ("+st+").")
		return
	}
	if yes || !atTerminal(c.stdin) {
		fmt.Fprintln(c.stdout, "Next: \"runway autostart on\" starts the tray at login; \"runway\" starts it now.")
		return
	}
	if !c.ask("Start runway's tray at login (runway autostart on)? [y/N] ") {
		fmt.Fprintln(c.stdout, "Not now: \"runway autostart on\" does it later; \"runway\" starts the tray now.")
		return
	}
	msg, err := tray.Autostart("on", tray.AutostartOptions{})
	if err != nil {
		c.p.errorf(err)
		return
	}
	fmt.Fprintln(c.stdout, msg)
}

// ask prints a yes/no question and reads the answer: only y or yes is yes.
func (c *cli) ask(question string) bool {
	fmt.Fprint(c.stdout, question)
	line, err := bufio.NewReader(c.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(c.stdout) // end of input: no answer is no
		return false
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// atTerminal says whether stdin is a terminal a person can answer at
// (/dev/null, a character device too, is where a script's stdin points).
func atTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok || !isTerminal(f) {
		return false
	}
	fi, err := f.Stat()
	null, nerr := os.Stat(os.DevNull)
	return err == nil && (nerr != nil || !os.SameFile(fi, null))
}

func mapStrings(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
