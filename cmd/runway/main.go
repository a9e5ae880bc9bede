// Command runway tells you which coding-agent session is burning your shared
// subscription quota, how fast, and when the window runs dry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/internal/quietterm"
)

// version is set at release time with -ldflags "-X main.version=…".
var version = "devel"

const usage = `runway watches Claude Code and Codex sessions and tells you which one burns
your shared subscription quota, how fast, and when the window runs dry.

Usage:
    runway [tray]              live tray icon, menu and notifications (the default)
    runway now                 one status line: window %, burn, run-out
    runway watch               the live view for a terminal (SSH, tmux)
    runway statusline          a Claude Code statusLine command
    runway serve               no desktop: keep the snapshot, receive other machines'
                               OpenTelemetry, serve Prometheus /metrics
    runway doctor              what runway found, what is missing, how to fix it
    runway demo                the real pipeline over a built-in sample history
    runway setup [--undo]      add runway statusline to Claude Code's settings
    runway autostart on|off|status
                               start the tray at login
    runway version             print the version

Run "runway COMMAND -h" for a command's flags.

Settings: flags, then the config file ($XDG_CONFIG_HOME/runway/config.toml;
%APPDATA%\runway\config.toml on Windows; or $RUNWAY_CONFIG), then defaults.
State: $XDG_STATE_HOME/runway (%LOCALAPPDATA%\runway on Windows; or
$RUNWAY_STATE_DIR).
`

func init() {
	// Every library's init has run: TERM is the user's again (see
	// internal/quietterm) before any command reads it or starts a child.
	quietterm.Restore()
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	p := printer{stderr}
	cmd, rest := "tray", args
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, rest = args[0], args[1:]
	} else if i := slices.IndexFunc(args, isCommand); i > 0 {
		// Flags before the command ("runway --offline tray") are its own.
		cmd, rest = args[i], append(slices.Clone(args[:i]), args[i+1:]...)
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, p: p}
	var err error
	switch cmd {
	case "now":
		err = c.now(rest)
	case "statusline":
		err = c.statusline(rest)
	case "watch":
		err = c.watch(rest)
	case "doctor":
		err = c.doctor(rest)
	case "demo":
		err = c.demo(rest)
	case "tray":
		err = c.tray(rest)
	case "serve":
		err = c.serve(rest)
	case "autostart":
		err = c.autostart(rest)
	case "setup":
		err = c.setup(rest)
	case "version":
		err = c.version(rest)
	default:
		p.errorf(errorWithHint(fmt.Errorf("unknown command %q", cmd), `run "runway --help" for the commands`))
		return 2
	}
	var exit exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return int(exit)
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	p.errorf(err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

var errUsage = errors.New("usage")

// isCommand says whether a word is one of runway's commands.
func isCommand(word string) bool {
	switch word {
	case "now", "statusline", "doctor", "demo", "tray", "autostart", "version":
		return true
	}
	return false
}

// cli is one invocation's streams and environment.
type cli struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	p              printer
	help           string // the running subcommand's help text
}

// flags makes a subcommand's flag set. Its help goes to stdout on -h only:
// a bad flag is one line on stderr, never the help in a status bar.
func (c *cli) flags(name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet("runway "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c.help = help
	return fs
}

// parse parses a subcommand's flags; a bad flag is a usage error.
func (c *cli) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.stdout, c.help)
			fs.SetOutput(c.stdout)
			fs.PrintDefaults()
			return err
		}
		return fmt.Errorf("%w: %v (see %q)", errUsage, err, fs.Name()+" -h")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (see %q)", errUsage, fs.Arg(0), fs.Name()+" -h")
	}
	return nil
}

// env is this invocation's settings: the config file, then the flags that
// override it.
func (c *cli) env(offline bool) (runway.Env, error) {
	env, err := runway.LoadEnv(c.getenv)
	if err != nil {
		return env, err
	}
	env.Version = buildVersion()
	if offline {
		env.Config.Offline = true
	}
	return env, nil
}

const versionHelp = `Usage: runway version

Prints runway's version: the release, or the module version go install
built, or "devel" for a build from a checkout.
`

func (c *cli) version(args []string) error {
	if err := c.parse(c.flags("version", versionHelp), args); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "runway %s\n", buildVersion())
	return nil
}

// buildVersion is the -ldflags version when set, else the module version
// `go install …@version` recorded in the binary.
func buildVersion() string {
	if version != "devel" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
