package main

import (
	"fmt"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/text"
)

const demoHelp = `Usage: runway demo [flags]

Runs the real pipeline (log reader, account samples, burn model) over a built-in
sample history shifted to end now, and prints what runway would show: three
Claude sessions burning the 5-hour window fast enough to run out before its
reset (one of them waiting on a tool), a fourth gone idle, and a Codex
session that lasts.
Nothing of yours is read or sent.

Flags:
`

func (c *cli) demo(args []string) error {
	fs := c.flags("demo", demoHelp)
	jsonOut := fs.Bool("json", false, "print the whole snapshot as JSON")
	var at instant
	fs.Var(&at, "at", "let the sample history end at this RFC 3339 instant instead of now")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	end := time.Now()
	if at.set {
		end = at.t
	}
	env, err := c.env(true)
	if err != nil {
		return err
	}
	snap, err := runway.Demo(c.ctx, env.Config, end)
	if err != nil {
		return err
	}
	if *jsonOut {
		return c.print(snap, true, "", false)
	}
	fmt.Fprintf(c.stdout, "runway demo: a built-in sample history, shifted to end %s\n\n", end.Local().Format("15:04"))
	fmt.Fprintf(c.stdout, "runway now:\n  %s\n\nrunway now --long:\n", text.Line(snap, time.Local))
	fmt.Fprint(c.stdout, text.Report(snap, time.Local))
	return nil
}
