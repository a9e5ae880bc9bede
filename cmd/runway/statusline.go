package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/text"
)

const statuslineHelp = `Usage: runway statusline [--then 'COMMAND']

A Claude Code statusLine command. Claude Code runs it after every message with
a JSON object on stdin; runway records the account windows it carries (the
freshest, finest source of Claude's percent) and prints one line for that
session:

    this 38m/h · claude 5h 42% 104m/h (lasts at ≤84) ▸14:05 (25m before the reset)

Install it in ~/.claude/settings.json:

    "statusLine": {"type": "command", "command": "runway statusline"}

To keep the statusline you have, wrap it (it gets the same stdin; its output
comes first):

    "statusLine": {"type": "command", "command": "runway statusline --then '~/.claude/my-status.sh'"}

A template picks what to show, with the functions and fields of
runway now --format, plus this session's .Model, .ContextUsedPercent,
.SessionID, .Cwd and .This (its burn, or nil) and "statusline ." (the default
line):

    runway statusline --format '{{.Model}} ctx {{pct .ContextUsedPercent}} · {{statusline .}}'

Flags:
`

// statuslineInputLimit: Claude Code's JSON is a few KB.
const statuslineInputLimit = 1 << 20

func (c *cli) statusline(args []string) error {
	fs := c.flags("statusline", statuslineHelp)
	then := fs.String("then", "", "also run this command with the same stdin and show its output first")
	format := fs.String("format", "", "print this Go template over the snapshot and this session (see the README)")
	// Accepted so "runway --offline statusline" in a settings file does not
	// blank the statusline: it never calls a network endpoint anyway.
	fs.Bool("offline", false, "accepted and changes nothing: the statusline never calls a network endpoint")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	var tmpl *text.Format
	if *format != "" {
		var err error
		if tmpl, err = text.Template(*format, time.Local); err != nil {
			return formatError(err, nil)
		}
	}
	if f, ok := c.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			c.p.warningf("statusline: reading Claude Code's JSON from stdin (this command is meant for Claude Code's statusLine setting; see runway statusline -h)")
		}
	}
	in, err := io.ReadAll(io.LimitReader(c.stdin, statuslineInputLimit+1))
	if err != nil {
		return fmt.Errorf("statusline: read stdin: %w", err)
	}
	if len(in) > statuslineInputLimit {
		// A cut JSON object says nothing true, to runway or to --then.
		c.p.warningf("statusline: stdin is over 1 MiB (Claude Code's JSON is a few KB): not read, and not passed to --then")
		in = nil
	}
	theirs := make(chan string, 1)
	if *then != "" {
		go func() { theirs <- c.runThen(*then, in) }()
	} else {
		theirs <- ""
	}
	ours := c.statuslineLine(in, tmpl)
	out := <-theirs
	switch {
	case out == "":
		out = ours
	case ours == "":
	case strings.Contains(out, "\n"):
		out += "\n" + ours
	default:
		out += " │ " + ours
	}
	if out != "" {
		fmt.Fprintln(c.stdout, out)
	}
	return nil
}

// statuslineLine records stdin's samples and renders this session's line;
// a problem becomes a short note, never a failed statusline.
func (c *cli) statuslineLine(in []byte, tmpl *text.Format) string {
	now := time.Now()
	env, err := c.env(false)
	if errors.Is(err, runway.ErrNoHome) {
		c.p.errorf(err)
		if err != runway.ErrNoHome {
			return "runway: HOME is not a folder"
		}
		return "runway: HOME is not set"
	}
	if err != nil {
		c.p.errorf(err)
		return "runway: bad config (run runway doctor)"
	}
	d, err := env.StatuslineData(c.ctx, in, now)
	if err != nil {
		c.p.warningf("statusline: %v", err)
	}
	if tmpl == nil {
		return text.SessionStatusline(d)
	}
	// A template that fails on this input says so in the line.
	var b strings.Builder
	if err := tmpl.Execute(&b, d); err != nil {
		problem, hint := text.TemplateProblem(err, d)
		if hint != "" {
			c.p.warningf("statusline: --format: %s (%s)", problem, hint)
		} else {
			c.p.warningf("statusline: --format: %s", problem)
		}
		return "runway: --format: " + problem
	}
	return strings.TrimRight(b.String(), "\n")
}

// thenTimeout bounds the wrapped command: the statusline must stay quick.
const thenTimeout = 5 * time.Second

// runThen runs the user's previous statusline command with the same stdin.
func (c *cli) runThen(command string, in []byte) string {
	ctx, cancel := context.WithTimeout(c.ctx, thenTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = c.stderr
	out := &capped{max: thenOutputLimit}
	cmd.Stdout = out
	// A child may hold the output open past the deadline: kill the group.
	cmd.WaitDelay = 500 * time.Millisecond
	stopGroup(cmd)
	err := cmd.Run()
	// Said briefly in the line too: Claude Code shows no statusline's stderr.
	brief := ""
	switch {
	case out.over:
		c.p.warningf("statusline: --then command's output over 64 KiB: cut there, and the command stopped")
		brief = "cut at 64 KiB"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		c.p.warningf("statusline: --then command took longer than %s and was stopped", thenTimeout)
		brief = "stopped after " + thenTimeout.String()
	case err != nil:
		c.p.warningf("statusline: --then command: %v", err)
		brief = err.Error()
	}
	s := strings.TrimRight(out.b.String(), "\n")
	switch {
	case brief == "":
		return s
	case s == "":
		return "--then: " + brief
	}
	return s + " (--then: " + brief + ")"
}

// thenOutputLimit: a statusline is a line or a few.
const thenOutputLimit = 64 << 10

// capped keeps the first max bytes, then fails the write so that a
// runaway writer's pipe closes.
type capped struct {
	b    bytes.Buffer
	max  int
	over bool
}

var errCapped = errors.New("output limit reached")

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); len(p) > room {
		c.b.Write(p[:max(room, 0)])
		c.over = true
		return max(room, 0), errCapped
	}
	return c.b.Write(p)
}
