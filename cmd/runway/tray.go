package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
	"github.com/agentrunway/runway/tray"
)

const trayHelp = `Usage: runway tray [flags]
       runway [flags]        (on a desktop, or with no terminal)

The live monitor: a tray icon showing quota minutes per hour of the most urgent
window (its percent when nothing burns), coloured by its verdict, and the same
figure as the panel's label where it has one; a tooltip with percent, m/h
beside the pace that lasts to the reset, and run-out and reset as countdowns; a menu with each provider's windows and its
sessions ranked by burn with what pausing each buys; and a desktop
notification before a window runs out. It follows the logs as
they grow and updates within a second of a new line.

Without a tray host (no session bus or no StatusNotifierWatcher, e.g. a plain
GNOME without the AppIndicator extension) it says so once and keeps running as
a notifier. It also keeps the snapshot that "runway now" reads while fresh.

To try it before any history of yours exists: runway tray --demo.

Flags:
`

func (c *cli) tray(args []string) error {
	fs := c.flags("tray", trayHelp)
	offline := fs.Bool("offline", false, "never call a network endpoint")
	quiet := fs.Bool("no-notify", false, "start with desktop notifications off")
	demo := fs.Bool("demo", false, "show the tray on the built-in sample history (nothing of yours is read; offline)")
	foreground := fs.Bool("foreground", false, "Windows: keep the terminal (by default the tray leaves it, so closing it does not end the tray)")
	listen := fs.String("listen", "", "also receive OpenTelemetry and serve /metrics on this address, as runway serve does (default [serve] listen, else off)")
	insecure := fs.Bool("insecure", false, "allow --listen beyond loopback without a token")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if started, err := c.detachTray(*foreground); started || err != nil {
		return err
	}
	env, closeDemo, err := c.envOrDemo(*offline, *demo, time.Now())
	if err != nil {
		return err
	}
	defer closeDemo()
	if *demo {
		c.p.warningf("demo: showing the built-in sample history, not your sessions")
	}
	choices, err := tray.LoadChoices(env.StateDir, runway.ConfigPath(c.getenv))
	if err != nil {
		c.p.warningf("%v", err)
	}
	env.Config.Notifications.Enabled, env.Config.Tray.SessionList = choices.Over(env.Config.Notifications.Enabled, env.Config.Tray.SessionList)
	if *quiet {
		env.Config.Notifications.Enabled = false
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()

	// Notices out, so a critical one turns the icon red; a full queue drops the rest.
	delivered := make(chan burn.Notice, 8)
	notify, tell, closeNotifier, notifyErr := c.trayNotices(env, delivered)
	defer closeNotifier()

	updates, publish := newestSnapshot()
	serving := c.serveOptions(env, *listen, *insecure)
	engine := runway.NewEngine(env, runway.EngineOptions{
		OnSnapshot: publish,
		OnNotice:   notify,
		Logf:       c.logf,
		Receive:    serving.Listen != "",
	})
	wait, err := runTrayEngine(ctx, engine, serving, func(err error) { c.p.warningf("%v", err) })
	if err != nil {
		return err
	}
	defer wait()

	err = tray.Run(ctx, updates, tray.Options{
		StatusLine:            func() string { return text.Line(engine.Latest(), time.Local) },
		Doctor:                func() string { return c.doctorText(env, engine) },
		Tell:                  tell,
		Notices:               delivered,
		OnNotificationsToggle: engine.SetNotifications,
		Notifications:         env.Config.Notifications.Enabled,
		SessionListMode:       env.Config.Tray.SessionList,
		MaxSessionRows:        env.Config.Tray.MaxSessions,
		Choices:               choices,
		Logf:                  func(f string, a ...any) { c.p.warningf(f, a...) },
	})
	if errors.Is(err, tray.ErrNoTrayHost) {
		c.noTrayHost(ctx, err, notifyErr == nil)
		err = nil
	}
	cancel()
	return err
}

// trayNotices opens the desktop notifier; each notice delivered also goes
// to delivered. Without one: nil funcs and the reason, warned.
func (c *cli) trayNotices(env runway.Env, delivered chan<- burn.Notice) (notify func(burn.Notice) error, tell func(summary, body string) error, closeNotifier func(), err error) {
	n, err := tray.NewNotifier()
	if err != nil {
		c.p.warningf("no desktop notifications: %v", err)
		return nil, nil, func() {}, err
	}
	notify = func(notice burn.Notice) error {
		err := n.Notify(notice)
		if err == nil {
			select {
			case delivered <- notice:
			default:
			}
		}
		return err
	}
	return notify, n.Tell, func() { n.Close() }, nil
}

// runTrayEngine runs the engine until ctx ends, serving too when serving
// has an address; wait returns once it stopped, and warn gets how it failed.
func runTrayEngine(ctx context.Context, engine *runway.Engine, serving runway.ServeOptions, warn func(error)) (wait func(), err error) {
	var srv *runway.Server
	if serving.Listen != "" {
		if srv, err = engine.Listen(serving); err != nil {
			return nil, err
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		run := engine.Run
		if srv != nil {
			run = func(ctx context.Context) error { return runServed(ctx, engine, srv) }
		}
		if err := run(ctx); err != nil {
			warn(err)
		}
	})
	return wg.Wait, nil
}

// noTrayHost keeps the notices and the snapshot going without an icon.
func (c *cli) noTrayHost(ctx context.Context, err error, notifies bool) {
	c.p.warningf("%v", err)
	if notifies {
		c.p.warningf("running as a notifier only; install a tray host (e.g. the AppIndicator extension on GNOME) for the icon")
	} else {
		c.p.warningf("no tray and no notifications: runway keeps its snapshot current for runway now and runway statusline only")
	}
	<-ctx.Done()
}
