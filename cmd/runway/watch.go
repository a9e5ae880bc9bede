package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/watch"
)

const watchHelp = `Usage: runway watch [flags]

The live view for a terminal (SSH, tmux, a machine without a desktop): each
provider's windows with used %, burn, run-out and reset; a chart of the active
window since it opened with the projection from now; the sessions ranked by
burn with what pausing each buys. It follows the logs like the tray and
updates within a second of a new line.

Keys: q quits, tab switches provider, s shows idle sessions, ? explains.
NO_COLOR turns colours off. For a script or a pipe, use runway now.

Flags:
`

func (c *cli) watch(args []string) error {
	fs := c.flags("watch", watchHelp)
	demo := fs.Bool("demo", false, "watch the built-in sample history instead of your logs")
	offline := fs.Bool("offline", false, "never call a network endpoint")
	var at instant
	fs.Var(&at, "at", "with --demo: let the sample history end at this RFC 3339 instant instead of now")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	end := time.Now()
	if at.set {
		if !*demo {
			return fmt.Errorf("%w: --at goes with --demo: watch follows your logs as they grow (runway now --at looks back)", errUsage)
		}
		end = at.t
	}
	in, out, ok := terminal(c.stdin, c.stdout)
	if !ok {
		return errorWithHint(errors.New("watch draws a full-screen view, and its input or output is not a terminal"),
			"in a script or a pipe, use runway now (or now --long, now --json)")
	}
	env, closeDemo, err := c.envOrDemo(*offline, *demo, end)
	if err != nil {
		return err
	}
	defer closeDemo()
	engineNow, label := time.Now, ""
	if *demo {
		// The demo is a story told at one instant: a running clock would
		// let its sessions go idle within a minute.
		engineNow, label = func() time.Time { return end }, "demo"
	}

	ctx, cancel := context.WithCancel(c.ctx)
	updates, publish := newestSnapshot()
	engine := runway.NewEngine(env, runway.EngineOptions{
		Now:        engineNow,
		OnSnapshot: publish,
		// Notifications stay the tray's: two surfaces would send each twice.
		NoNotices: true,
		Logf:      func(string, ...any) {}, // the screen is the view's; warnings reach it in the snapshot
	})
	done := make(chan struct{})
	go func() { engine.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	err = watch.Run(ctx, in, out, watch.Options{
		History: engine.History,
		Config:  env.Config.Burn(),
		Colour:  c.getenv("NO_COLOR") == "" && c.getenv("TERM") != "dumb",
		Label:   label,
	}, updates)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// envOrDemo is the user's Env, or with demo the sample history's ending at
// end, whose folder the returned func removes.
func (c *cli) envOrDemo(offline, demo bool, end time.Time) (runway.Env, func(), error) {
	env, err := c.env(offline)
	if err != nil || !demo {
		return env, func() {}, err
	}
	d, err := runway.OpenDemo(env.Config, end)
	if err != nil {
		return env, func() {}, err
	}
	d.Env.Version = env.Version
	return d.Env, func() { d.Close() }, nil
}

// terminal gives the view's input and output when both are terminals.
func terminal(stdin, stdout any) (in, out *os.File, ok bool) {
	in, okIn := stdin.(*os.File)
	out, okOut := stdout.(*os.File)
	if !okIn || !okOut {
		return nil, nil, false
	}
	return in, out, isTerminal(in) && isTerminal(out)
}

// toTerminal says whether the command's output goes to a terminal: a
// person reads it, not a script or a status bar.
func (c *cli) toTerminal() bool {
	f, ok := c.stdout.(*os.File)
	return ok && isTerminal(f)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
