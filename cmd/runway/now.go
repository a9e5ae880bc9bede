package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

const nowHelp = `Usage: runway now [flags]

Prints one line for a shell prompt, tmux or a script:

    claude 5h 42% 104m/h (lasts at ≤84) ▸14:05 (25m before the reset) · codex 5h 12% 6m/h (lasts at ≤88) ☺

window, used percent, the burn in quota minutes per hour ("~" marks an
estimate rather than a measured burn) beside the pace that lasts to the reset
(what is left over the time to the reset: 60 m/h only while the window opens),
and the projected run-out with how much it beats the reset, or ☺ when the
window lasts. A figure that is not fresh says how old it is: "42% (7m old)".

With --check the exit status is a gate for an orchestrator, over every window
(5-hour and weekly) of every provider: 0 on track, 1 a window is low or
projected to run out before its reset, 2 a window is exhausted, 3 runway
cannot tell (no account figure at all, a state it could not read, a bad flag
or config file). A known 1 or 2 is said even when something else is unknown.

Flags:
`

func (c *cli) now(args []string) error {
	if checking(args) {
		// A gate answers by its exit status, also when the reader of its
		// output is gone: not by a death from SIGPIPE (141), no verdict.
		signal.Ignore(syscall.SIGPIPE)
	}
	err := c.nowAnswer(args)
	var verdict exitError
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.As(err, &verdict) && checking(args) {
		// A gate must tell "could not answer" from its verdicts 1 and 2.
		c.p.errorf(err)
		return exitError(3)
	}
	return err
}

// checking says whether args ask for --check, read before they are parsed:
// a bad flag stops the parse before a later --check is seen.
func checking(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "check" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}

func (c *cli) nowAnswer(args []string) error {
	fs := c.flags("now", nowHelp)
	jsonOut := fs.Bool("json", false, "print the whole snapshot as JSON")
	format := fs.String("format", "", "print this Go template over the snapshot (see the README)")
	var at instant
	fs.Var(&at, "at", "evaluate as of this RFC 3339 instant, from data stamped at or before it")
	check := fs.Bool("check", false, "exit 0 on track, 1 when a window (5-hour or weekly) is low or runs out before its reset, 2 when one is exhausted, 3 when runway cannot tell")
	long := fs.Bool("long", false, "several lines: windows, burn, sessions and their pause impact")
	demo := fs.Bool("demo", false, "use the built-in sample history instead of your logs")
	offline := fs.Bool("offline", false, "never call a network endpoint")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if err := oneOutput(fs, "json", "format", "long"); err != nil {
		return err
	}
	if at.set && !*demo && at.t.After(time.Now()) {
		// Nothing is written there yet: the figures would be made up.
		return fmt.Errorf("%w: --at %s is in the future: runway reads what the agents wrote (leave --at out for now)", errUsage, at.String())
	}
	env, err := c.env(*offline)
	if err != nil {
		return err
	}
	o := runway.EvalOptions{Live: true, LiveTimeout: 3 * time.Second}
	if at.set {
		o.At, o.Live = at.t, false
	}
	var snap burn.Snapshot
	if *demo {
		end := time.Now()
		if at.set {
			end = at.t // the demo history then ends at that instant
		}
		snap, err = runway.Demo(c.ctx, env.Config, end)
	} else {
		// A person at a terminal with no logs gets the demo; a script or a
		// status bar gets the truth: no data, never the sample's figures.
		snap, err = c.answer(env, o, !*jsonOut && *format == "" && !*check && c.toTerminal())
	}
	if err != nil {
		return err
	}
	if err := c.print(snap, *jsonOut, *format, *long); err != nil {
		return err
	}
	if *check {
		return c.checkStatus(snap)
	}
	return nil
}

// answer is the recent snapshot, else an evaluation; without any log, the
// demo when demoIfNoLogs, said to be one.
func (c *cli) answer(env runway.Env, o runway.EvalOptions, demoIfNoLogs bool) (burn.Snapshot, error) {
	if o.At.IsZero() {
		if snap, ok := env.RecentSnapshot(time.Now()); ok {
			return snap, nil
		}
	}
	ev := env.Evaluate(c.ctx, o)
	if !ev.NoLogs() || len(ev.Snapshot.Providers) > 0 || !demoIfNoLogs {
		return ev.Snapshot, nil
	}
	// Where runway looked is among the warnings the demo's snapshot replaces.
	for _, w := range ev.Snapshot.Warnings {
		c.p.warningf("%s", w)
	}
	c.p.warningf("showing the built-in demo instead (runway demo); set CLAUDE_CONFIG_DIR or CODEX_HOME if your logs live elsewhere")
	snap, err := runway.Demo(c.ctx, env.Config, time.Now())
	if err == nil {
		fmt.Fprint(c.stdout, "demo: ")
	}
	return snap, err
}

// print writes the snapshot in the form asked for.
func (c *cli) print(snap burn.Snapshot, jsonOut bool, format string, long bool) error {
	switch {
	case jsonOut:
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(snap)
	case format != "":
		tmpl, err := text.Template(format, time.Local)
		if err != nil {
			return formatError(err, nil)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, snap); err != nil {
			return formatError(err, snap)
		}
		// Nothing of a failed template is printed: half a line in a
		// status bar reads as a figure.
		fmt.Fprint(c.stdout, b.String())
		if !strings.HasSuffix(format, "\n") {
			fmt.Fprintln(c.stdout)
		}
	case long:
		fmt.Fprint(c.stdout, text.Report(snap, time.Local))
	default:
		fmt.Fprintln(c.stdout, text.Line(snap, time.Local))
	}
	if !jsonOut {
		for _, w := range snap.Warnings {
			c.p.warningf("%s", w)
		}
	}
	return nil
}

// formatError is a --format template's failure in its writer's words; one
// that does not parse is a usage error.
func formatError(err error, data any) error {
	problem, hint := text.TemplateProblem(err, data)
	err = fmt.Errorf("--format: %s", problem)
	if data == nil {
		err = fmt.Errorf("%w: %v", errUsage, err)
	}
	if hint == "" {
		return err
	}
	return errorWithHint(err, hint)
}

// checkStatus is --check's exit status: burn's verdict over every window
// of every provider. "Cannot tell" is said on stderr, so a script's log
// shows why the gate is closed.
func (c *cli) checkStatus(s burn.Snapshot) error {
	v, why := burn.Gate(s)
	if v == burn.CannotTell {
		c.p.warningf("--check cannot tell: %s", why)
	}
	if v == burn.Lasts {
		return nil
	}
	return exitError(v)
}

// oneOutput refuses two flags that each choose the whole output: one of
// them would be dropped without a word.
func oneOutput(fs *flag.FlagSet, names ...string) error {
	var given []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) && f.Value.String() != "false" && f.Value.String() != "" {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 1 {
		both := strings.Join(given[:len(given)-1], ", ") + " and " + given[len(given)-1]
		return fmt.Errorf("%w: %s each choose what is printed: give one (see %q)", errUsage, both, fs.Name()+" -h")
	}
	return nil
}
