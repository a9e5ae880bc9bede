package main

import (
	"fmt"
	"time"

	"github.com/agentrunway/runway"
)

const demoHelp = `Usage: runway demo [flags]

Runs the real pipeline (log reader, account samples, burn model) over a built-in
sample history shifted to end now, and prints what runway would show: three
Claude sessions burning the 5-hour window fast enough to run out before its
reset, one waiting on a tool, one idle, and a Codex session that lasts.
Nothing of yours is read or sent.

Flags:
`

func (c *cli) demo(args []string) error {
	fs := c.flags("demo", demoHelp)
	jsonOut := fs.Bool("json", false, "print the whole snapshot as JSON")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	env, err := runway.LoadEnv(c.getenv)
	if err != nil {
		return err
	}
	snap, err := runway.Demo(c.ctx, env.Config, time.Now())
	if err != nil {
		return err
	}
	if *jsonOut {
		return c.print(snap, true, "", false)
	}
	fmt.Fprintf(c.stdout, "runway demo: a built-in sample history, shifted to end now\n\n")
	fmt.Fprintf(c.stdout, "runway now:\n  %s\n\nrunway now --long:\n", runway.Line(snap, time.Local))
	fmt.Fprint(c.stdout, runway.Report(snap, time.Local))
	return nil
}
