package tray

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentrunway/runway/internal/selfexe"
)

// AutostartOptions say what starts at login and where the entry goes.
type AutostartOptions struct {
	Exec    string // the program; the running executable when empty
	Systemd bool   // Linux: a systemd user unit instead of an XDG autostart entry
	// Serve starts `runway serve` instead of `runway tray`; on Linux as a
	// unit of default.target, as a server has no graphical session.
	Serve bool
	// Dir replaces the entry's folder, for tests: the config folder on
	// Linux, LaunchAgents on macOS; Windows keeps a registry value.
	Dir string
}

// launchAgentLabel names runway's LaunchAgent, reverse-DNS as launchd wants.
const launchAgentLabel = "com.github.agentrunway.runway"

// Autostart turns starting at login "on" or "off", or reports its "status",
// and returns a line saying what it did: an XDG autostart entry or a systemd
// user unit on Linux, a LaunchAgent on macOS, a value under HKCU\…\Run on
// Windows.
func Autostart(action string, opts AutostartOptions) (string, error) {
	switch action {
	case "on", "off", "status":
	default:
		return "", fmt.Errorf("autostart: unknown action %q (want on, off or status)", action)
	}
	opts.Systemd = opts.Systemd || opts.Serve
	if action == "on" && opts.Exec == "" {
		exe, err := selfexe.Path()
		if err != nil {
			return "", fmt.Errorf("autostart: %w", err)
		}
		if selfexe.Temporary(exe) {
			return "", fmt.Errorf("autostart: %s is a temporary build (go run) that is gone by the next login; "+
				"install runway with \"go install github.com/agentrunway/runway/cmd/runway@latest\", then run \"runway autostart on\"", exe)
		}
		opts.Exec = exe
	}
	return autostart(action, opts)
}

// args are what the entry passes runway: its command.
func (o AutostartOptions) args() []string {
	if o.Serve {
		return []string{"serve"}
	}
	return []string{"tray"}
}

// commandLine quotes exec and args for a file of one line per setting: a
// line break cannot go in it.
func commandLine(exec string, args []string, quote func(string) string, file string) (string, error) {
	var cmd []string
	for _, a := range append([]string{exec}, args...) {
		if strings.ContainsAny(a, "\n\r") {
			return "", fmt.Errorf("autostart: a line break in %q cannot go in %s", a, file)
		}
		cmd = append(cmd, quote(a))
	}
	return strings.Join(cmd, " "), nil
}

// desktopEntry is an XDG autostart entry starting exec with args.
func desktopEntry(exec string, args []string) (string, error) {
	cmd, err := commandLine(exec, args, desktopQuote, "a desktop entry")
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=runway\n" +
		"Comment=Which coding agent burns your quota, live\n" +
		"Exec=" + cmd + "\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n", err
}

// desktopQuote quotes one Exec argument as the Desktop Entry spec says:
// double quotes with \ " ` $ escaped, then the string escape of \ again, and
// % doubled since it introduces field codes.
func desktopQuote(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if a != "" && !strings.ContainsAny(a, " \t\"'\\><~|&;$*?#()`") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		switch r {
		case '\\':
			b.WriteString(`\\\\`)
		case '"', '`', '$':
			b.WriteString(`\\`)
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unitTarget is the systemd target of a unit starting args: the graphical
// session for the tray, the user manager's default for runway serve.
func unitTarget(args []string) string {
	if len(args) > 0 && args[0] == "serve" {
		return "default.target"
	}
	return "graphical-session.target"
}

// systemdUnit is a user service starting exec with args in its target
// (unitTarget), restarted if it crashes.
func systemdUnit(exec string, args []string) (string, error) {
	cmd, err := commandLine(exec, args, systemdQuote, "a unit file")
	target := unitTarget(args)
	bound := ""
	if target == "graphical-session.target" {
		bound = "PartOf=" + target + "\nAfter=" + target + "\n"
	}
	return "[Unit]\n" +
		"Description=runway: which coding agent burns your quota, live\n" +
		bound +
		"\n" +
		"[Service]\n" +
		"ExecStart=" + cmd + "\n" +
		"Restart=on-failure\n" +
		"\n" +
		"[Install]\n" +
		"WantedBy=" + target + "\n", err
}

// systemdQuote quotes one ExecStart argument: % and $ are doubled
// (specifiers, variables), the rest goes in C-style double quotes.
func systemdQuote(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	a = strings.ReplaceAll(a, "$", "$$")
	if a != "" && !strings.ContainsAny(a, " \t\"'\\;") {
		return a
	}
	a = strings.ReplaceAll(a, `\`, `\\`)
	a = strings.ReplaceAll(a, `"`, `\"`)
	return `"` + a + `"`
}

// launchAgent is a LaunchAgent property list running exec with args at login.
func launchAgent(exec string, args []string) string {
	esc := func(s string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + launchAgentLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{exec}, args...) {
		b.WriteString("\t\t<string>" + esc(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
	return b.String()
}

// writeEntry writes an autostart file readable by the user only.
func writeEntry(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// removeEntry removes a file, reporting whether it was there.
func removeEntry(path string) (bool, error) {
	err := os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("autostart: %w", err)
}
