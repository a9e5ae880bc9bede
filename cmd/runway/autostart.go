package main

import (
	"fmt"

	"github.com/agentrunway/runway/tray"
)

const autostartHelp = `Usage: runway autostart on|off|status [flags]

Starts the tray at login: an XDG autostart entry on Linux
(~/.config/autostart/runway.desktop, or a systemd user unit with --systemd),
a LaunchAgent on macOS, the Run registry key on Windows. "off" removes it,
"status" says what is installed.

Flags:
`

func (c *cli) autostart(args []string) error {
	fs := c.flags("autostart", autostartHelp)
	systemd := fs.Bool("systemd", false, "Linux: use a systemd user unit instead of an XDG autostart entry")
	var action string
	if len(args) > 0 && (args[0] == "on" || args[0] == "off" || args[0] == "status") {
		action, args = args[0], args[1:]
	}
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if action == "" {
		return fmt.Errorf("%w: say on, off or status (see \"runway autostart -h\")", errUsage)
	}
	msg, err := tray.Autostart(action, tray.AutostartOptions{Systemd: *systemd})
	if err != nil {
		return errorWithHint(err, "run \"runway doctor\" to see what runway finds on this desktop")
	}
	fmt.Fprintln(c.stdout, msg)
	return nil
}
