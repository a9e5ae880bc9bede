package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

const serveHelp = `Usage: runway serve [flags]

The engine without a desktop, for servers, containers and SSH boxes: it
follows the logs, keeps the snapshot "runway now" and "runway statusline"
read, prints each notification as a line on stderr (or runs [serve]
notice_command), and answers on one address:

    POST /v1/logs, /v1/metrics   OpenTelemetry (OTLP/HTTP, protobuf or JSON,
                                 gzip) from Claude Code and Codex on other
                                 machines: their sessions are counted by host
    GET  /metrics                Prometheus metrics

It listens on 127.0.0.1:4318 unless --listen or [serve] listen say
otherwise; any address beyond loopback needs a token ([serve] token or
RUNWAY_SERVE_TOKEN, sent as "Authorization: Bearer TOKEN") or --insecure.
It stops cleanly on SIGTERM, SIGHUP or Ctrl-C.

Flags:
`

func (c *cli) serve(args []string) error {
	fs := c.flags("serve", serveHelp)
	listen := fs.String("listen", "", "address to listen on (default [serve] listen, else "+runway.DefaultListen+")")
	insecure := fs.Bool("insecure", false, "allow an address beyond loopback without a token")
	offline := fs.Bool("offline", false, "never call a network endpoint")
	quiet := fs.Bool("no-notify", false, "do not print or run notifications")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	env, err := c.env(*offline)
	if err != nil {
		return err
	}
	if *quiet {
		env.Config.Notifications.Enabled = false
	}
	o := c.serveOptions(env, *listen, *insecure)
	if o.Listen == "" {
		o.Listen = runway.DefaultListen
	}
	if c.getenv("GOMEMLIMIT") == "" {
		// The garbage of a flood of exports is collected before the
		// process grows past this, not at twice what is live.
		debug.SetMemoryLimit(serveMemory)
	}
	// A closed terminal (an SSH session dropped) stops it as SIGTERM does,
	// saving what it took in, not at once; from before it listens on.
	ctx, stop := signal.NotifyContext(c.ctx, syscall.SIGHUP)
	defer stop()
	notify := c.noticeSink(env)
	engine := runway.NewEngine(env, runway.EngineOptions{
		OnNotice: notify,
		Logf:     c.logf,
		Receive:  true,
	})
	srv, err := engine.Listen(o)
	if err != nil {
		return err
	}
	c.logf("runway: serving OTLP/HTTP and /metrics on %s", srv.Where())
	return runServed(ctx, engine, srv)
}

// serveMemory (GOMEMLIMIT overrides it) fits a full store and an 8 MiB export decoded.
const serveMemory = 80 << 20

// runServed runs the engine and its listener until ctx ends or either stops.
func runServed(ctx context.Context, engine *runway.Engine, srv *runway.Server) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var serveErr, runErr error
	wg.Go(func() {
		defer cancel()
		serveErr = srv.Serve(ctx)
	})
	wg.Go(func() {
		defer cancel()
		runErr = engine.Run(ctx)
	})
	wg.Wait()
	return errors.Join(serveErr, runErr)
}

// serveOptions is the listener's settings: the flag, then the config;
// RUNWAY_SERVE_TOKEN over [serve] token, either trimmed, as no sender can
// put spaces around a header's value.
func (c *cli) serveOptions(env runway.Env, listen string, insecure bool) runway.ServeOptions {
	o := runway.ServeOptions{Listen: env.Config.Serve.Listen, Token: strings.TrimSpace(env.Config.Serve.Token), Insecure: insecure}
	if listen != "" {
		o.Listen = listen
	}
	if t := strings.TrimSpace(c.getenv("RUNWAY_SERVE_TOKEN")); t != "" {
		o.Token = t
	}
	return o
}

// stderrMu keeps whole the lines goroutines write.
var stderrMu sync.Mutex

func (c *cli) logf(format string, args ...any) {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	fmt.Fprintf(c.stderr, format+"\n", args...)
}

// noticeSink delivers notifications without a desktop: [serve]
// notice_command with the summary and body as its last two arguments, else
// a line on stderr.
func (c *cli) noticeSink(env runway.Env) func(burn.Notice) error {
	cmd := env.Config.Serve.NoticeCommand
	return func(n burn.Notice) error {
		summary, body := text.Notice(n, time.Now(), nil)
		if len(cmd) == 0 {
			c.logf("runway: notice: %s. %s", summary, body)
			return nil
		}
		ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cmd[0], append(cmd[1:len(cmd):len(cmd)], summary, body)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("notice_command %s: %v: %s (fix [serve] notice_command)", cmd[0], err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}
