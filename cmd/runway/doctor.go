package main

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/doctor"
	"github.com/agentrunway/runway/tray"
)

const doctorHelp = `Usage: runway doctor [flags]

Shows what runway found and how fresh it is: the agents' log folders (files,
newest), each account source with its state and age, whether Claude Code runs
"runway statusline", the Codex app-server's answer (the windows it read, or why
not), whether runway serve listens where the config says (a loopback address
is asked once; another is not called) with the remote sessions and hosts it
saved and the requests it refused, whether the tray runs, and whether this desktop has a tray host and a
notification server. While the tray runs, the account sources are the tray's:
doctor then calls no endpoint and starts no app-server. Each problem
comes with its fix. Credentials are named by file and state, never shown.
The exit status is 1 when a problem (XX) was found, 0 otherwise.

Flags:
`

func (c *cli) doctor(args []string) error {
	fs := c.flags("doctor", doctorHelp)
	jsonOut := fs.Bool("json", false, "print the checks as JSON")
	offline := fs.Bool("offline", false, "never call a network endpoint or start the Codex app-server")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	env, cfgErr := c.env(*offline)
	if errors.Is(cfgErr, runway.ErrNoHome) {
		return cfgErr
	}
	if cfgErr != nil {
		// The doctor is where a bad config file is diagnosed, beside
		// everything else: look with the defaults.
		env = runway.NewEnv(c.getenv, runway.DefaultConfig())
		env.Version, env.Config.Offline = buildVersion(), *offline
	}
	sections := doctor.Run(c.ctx, env, doctor.Options{
		ConfigPath: runway.ConfigPath(c.getenv),
		ConfigErr:  cfgErr,
		AskCodex:   !env.Config.Offline,
		Desktop:    c.desktop(false),
	})
	var err error
	if *jsonOut {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(sections)
	} else {
		_, err = c.stdout.Write([]byte(doctor.Render(sections)))
	}
	if err == nil && doctor.Problems(sections) > 0 {
		return exitError(1) // a script can tell a working setup from a broken one
	}
	return err
}

// doctorText is the tray's "Open doctor…" text: the files and settings
// checked afresh, but the account sources as the running engine last saw
// them, so a click never calls an endpoint or starts a Codex app-server.
func (c *cli) doctorText(env runway.Env, e *runway.Engine) string {
	return doctor.Render(doctor.Run(c.ctx, env, doctor.Options{
		ConfigPath: runway.ConfigPath(c.getenv),
		Sources:    e.Sources(),
		Desktop:    c.desktop(true),
	}))
}

// desktop probes the tray host and the notification server, where a
// desktop runs: on a box without one there is nothing to ask. The tray's
// own doctor always asks: a tray a service started may lack DISPLAY.
func (c *cli) desktop(always bool) *doctor.Desktop {
	if !always && !hasDesktop(runtime.GOOS, c.getenv) {
		return &doctor.Desktop{}
	}
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	d := tray.Probe(ctx)
	return &doctor.Desktop{Present: true, TrayHost: d.TrayHost, Notifications: d.Notifications, NotifyServer: d.NotifyServer}
}
