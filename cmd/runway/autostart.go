package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/agentrunway/runway/tray"
)

const autostartHelp = `Usage: runway autostart on|off|status [flags]

Starts the tray at login: an XDG autostart entry on Linux
(~/.config/autostart/runway.desktop, or a systemd user unit with --systemd),
a LaunchAgent on macOS, the Run registry key on Windows. "off" removes it,
"status" says what is installed. With --serve it starts "runway serve"
instead (a systemd user unit on Linux).

Flags:
`

func (c *cli) autostart(args []string) error {
	fs := c.flags("autostart", autostartHelp)
	systemd := fs.Bool("systemd", false, "Linux: use a systemd user unit instead of an XDG autostart entry")
	serve := fs.Bool("serve", false, "start runway serve (no desktop) instead of the tray; on Linux a systemd user unit")
	// Flags may come before the verb or after it.
	action, err := c.verb(fs, args, "on", "off", "status")
	if err != nil {
		return err
	}
	msg, err := tray.Autostart(action, tray.AutostartOptions{Systemd: *systemd, Serve: *serve})
	if err != nil {
		return errorWithHint(err, "run \"runway doctor\" to see what runway finds on this desktop")
	}
	fmt.Fprintln(c.stdout, msg)
	return nil
}

// verb parses a subcommand of the form "VERB [flags]" or "[flags] VERB
// [flags]" and returns the verb, one of verbs.
func (c *cli) verb(fs *flag.FlagSet, args []string, verbs ...string) (string, error) {
	if err := fs.Parse(args); err != nil {
		// Report it as parse does: help on -h, a usage error otherwise.
		return "", c.parse(fs, args)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return "", fmt.Errorf("%w: say %s (see \"%s -h\")", errUsage, orList(verbs), fs.Name())
	}
	verb := rest[0]
	if !slices.Contains(verbs, verb) {
		return "", fmt.Errorf("%w: unknown action %q: say %s (see \"%s -h\")", errUsage, verb, orList(verbs), fs.Name())
	}
	if err := c.parse(fs, rest[1:]); err != nil {
		return "", err
	}
	return verb, nil
}

// orList is "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
