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
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentrunway/runway"
)

// version is set at release time with -ldflags "-X main.version=…".
var version = "devel"

// command is a row of the one table the usage, the dispatch and the
// flags-before-the-command rule all read.
type command struct {
	name, args, help string
	run              func(*cli, []string) error
}

var commands = []command{
	{"tray", "", "live tray icon, menu and notifications", (*cli).tray},
	{"now", "", "one status line: window %, burn, run-out", (*cli).now},
	{"watch", "", "the live view for a terminal (SSH, tmux)", (*cli).watch},
	{"statusline", "", "a Claude Code statusLine command", (*cli).statusline},
	{"serve", "", "no desktop: keep the snapshot, receive other machines'\nOpenTelemetry, serve Prometheus /metrics", (*cli).serve},
	{"doctor", "", "what runway found, what is missing, how to fix it", (*cli).doctor},
	{"demo", "", "the real pipeline over a built-in sample history", (*cli).demo},
	{"setup", "[--undo]", "add runway statusline to Claude Code's settings", (*cli).setup},
	{"autostart", "on|off|status", "start the tray at login", (*cli).autostart},
	{"version", "", "print the version (also runway --version or -v)", (*cli).version},
}

// lookup is the command named name.
func lookup(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// usage is runway --help, made from the command table.
func usage() string {
	var b strings.Builder
	b.WriteString(`runway watches Claude Code and Codex sessions and tells you which one burns
your shared subscription quota, how fast, and when the window runs dry.

Usage:
    runway                     the tray on a desktop, runway watch in a terminal
                               without one, else the tray's snapshot keeper
`)
	for _, c := range commands {
		name := strings.TrimSpace("runway " + c.name + " " + c.args)
		lines := strings.Split(c.help, "\n")
		if len(name) > 26 {
			// A long name has its line to itself, the help under it.
			fmt.Fprintf(&b, "    %s\n", name)
			name = ""
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "    %-27s%s\n", name, l)
			name = ""
		}
	}
	b.WriteString(`
Run "runway COMMAND -h" for a command's flags.

Settings: flags, then the config file ($XDG_CONFIG_HOME/runway/config.toml;
%APPDATA%\runway\config.toml on Windows; or $RUNWAY_CONFIG), then defaults.
State: $XDG_STATE_HOME/runway (%LOCALAPPDATA%\runway on Windows; or
$RUNWAY_STATE_DIR).
`)
	return b.String()
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
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help", "help":
			fmt.Fprint(stdout, usage())
			return 0
		case "-v", "--version", "-version":
			args = append([]string{"version"}, args[1:]...)
		}
	}
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, p: p}
	name, rest := "", args
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, rest = args[0], args[1:]
	} else if i := slices.IndexFunc(args, func(a string) bool { _, ok := lookup(a); return ok }); i > 0 {
		// Flags before the command ("runway --offline watch") are its own.
		name, rest = args[i], append(slices.Clone(args[:i]), args[i+1:]...)
	}
	if name == "" {
		name = c.bareCommand()
	}
	cmd, ok := lookup(name)
	if !ok {
		p.errorf(errorWithHint(fmt.Errorf("unknown command %q", name), `run "runway --help" for the commands`))
		return 2
	}
	err := cmd.run(c, rest)
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

// bareCommand is the tray on a desktop or without a terminal, else watch.
func (c *cli) bareCommand() string {
	_, _, atTerminal := terminal(c.stdin, c.stdout)
	if !atTerminal || hasDesktop(runtime.GOOS, c.getenv) {
		return "tray"
	}
	c.p.notef("no desktop here: showing runway watch (runway serve keeps the figures without a terminal; runway --help lists the rest)")
	return "watch"
}

// hasDesktop: a display on Linux and the BSDs (an SSH login may have a
// session bus too); always on macOS and Windows.
func hasDesktop(goos string, getenv func(string) string) bool {
	switch goos {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly", "illumos", "solaris":
	default:
		return true
	}
	switch getenv("XDG_SESSION_TYPE") {
	case "x11", "wayland":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
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

// flags makes a subcommand's flag set; help goes to stdout on -h only,
// never into a status bar after a bad flag.
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
		msg := badValue().ReplaceAllString(err.Error(), "--$2 $1: $3")
		return fmt.Errorf("%w: %s (see %q)", errUsage, msg, fs.Name()+" -h")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (see %q)", errUsage, fs.Arg(0), fs.Name()+" -h")
	}
	return nil
}

// instant is an --at flag, checked where it is parsed.
type instant struct {
	t   time.Time
	set bool
}

// firstYear: an --at before it is a typo (the zero time would mean now).
const firstYear = 2000

func (i *instant) String() string {
	if !i.set {
		return ""
	}
	return i.t.Format(time.RFC3339)
}

func (i *instant) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return errors.New("want an RFC 3339 time like 2026-11-20T14:05:00Z")
	}
	if t.Year() < firstYear {
		return fmt.Errorf("want a time from %d on (no agent logged before)", firstYear)
	}
	i.t, i.set = t, true
	return nil
}

// badValue rewords the flag package's refusal as the user typed the flag.
var badValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value (".*") for flag -(\S+): (.*)$`) })

// env is the config file's settings with the flags' over them.
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

// buildVersion is the -ldflags version, else what `go install` recorded.
func buildVersion() string {
	if version != "devel" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
