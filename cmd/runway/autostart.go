package main

import (
	"fmt"

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
	msg, err := tray.Autostart(action, tray.AutostartOptions{Systemd: *systemd, Serve: *serve})
	if err != nil {
		return errorWithHint(err, "run \"runway doctor\" to see what runway finds on this desktop")
	}
	fmt.Fprintln(c.stdout, msg)
	return nil
}
