//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// autostartPaths are the XDG entry, the systemd unit and its enablement link.
func autostartPaths(dir string) (desktop, unit, wants string, err error) {
	if dir == "" {
		if dir, err = os.UserConfigDir(); err != nil {
			return "", "", "", fmt.Errorf("autostart: no config folder: %w", err)
		}
	}
	units := filepath.Join(dir, "systemd", "user")
	return filepath.Join(dir, "autostart", "runway.desktop"),
		filepath.Join(units, "runway.service"),
		filepath.Join(units, "graphical-session.target.wants", "runway.service"), nil
}

func autostart(action string, opts AutostartOptions) (string, error) {
	desktop, unit, wants, err := autostartPaths(opts.Dir)
	if err != nil {
		return "", err
	}
	e := entries{desktop, unit, wants}
	switch action {
	case "on":
		// One mechanism at a time, or the tray would start twice.
		if opts.Systemd {
			return e.onSystemd(opts)
		}
		return e.onDesktop(opts)
	case "off":
		return e.off()
	}
	return e.status(), nil
}

// entries are the places a login start can be: an XDG autostart entry,
// or a systemd user unit and the link that enables it.
type entries struct{ desktop, unit, wants string }

func (e entries) onSystemd(opts AutostartOptions) (string, error) {
	// The tray's link or runway serve's: never both.
	other := e.wants
	wants := wantsLink(e.unit, unitTarget(opts.args()))
	if wants == other {
		other = wantsLink(e.unit, "default.target")
	}
	if _, err := removeEntry(other); err != nil {
		return "", err
	}
	content, err := systemdUnit(opts.Exec, opts.args())
	if err != nil {
		return "", err
	}
	if err := writeEntry(e.unit, content); err != nil {
		return "", err
	}
	// What `systemctl --user enable` does, without needing a running user
	// manager.
	if err := os.MkdirAll(filepath.Dir(wants), 0o755); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	if _, err := removeEntry(wants); err != nil {
		return "", err
	}
	if err := os.Symlink(e.unit, wants); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	if _, err := removeEntry(e.desktop); err != nil {
		return "", err
	}
	when := "with the graphical session"
	if unitTarget(opts.args()) == "default.target" {
		when = "with your user manager (for a login on a server: loginctl enable-linger)"
	}
	return fmt.Sprintf("autostart on: %s starts %s (now: systemctl --user daemon-reload && systemctl --user start runway)", e.unit, when), nil
}

func (e entries) onDesktop(opts AutostartOptions) (string, error) {
	content, err := desktopEntry(opts.Exec, opts.args())
	if err != nil {
		return "", err
	}
	if err := writeEntry(e.desktop, content); err != nil {
		return "", err
	}
	if err := removeUnit(e.unit, e.wants); err != nil {
		return "", err
	}
	return fmt.Sprintf("autostart on: %s starts %q at login", e.desktop, strings.Join(append([]string{opts.Exec}, opts.args()...), " ")), nil
}

func (e entries) off() (string, error) {
	had, err := removeEntry(e.desktop)
	if err != nil {
		return "", err
	}
	_, statErr := os.Lstat(e.unit)
	if err := removeUnit(e.unit, e.wants); err != nil {
		return "", err
	}
	if !had && statErr != nil {
		return "autostart was already off", nil
	}
	return "autostart off", nil
}

func (e entries) status() string {
	var on []string
	if _, err := os.Stat(e.desktop); err == nil {
		on = append(on, e.desktop)
	}
	if _, err := os.Stat(e.wants); err == nil {
		on = append(on, e.unit+" (systemd, enabled)")
	} else if _, err := os.Stat(wantsLink(e.unit, "default.target")); err == nil {
		on = append(on, e.unit+" (systemd, runway serve, enabled)")
	} else if _, err := os.Stat(e.unit); err == nil {
		on = append(on, e.unit+" (systemd, not enabled)")
	}
	if len(on) == 0 {
		return "autostart off"
	}
	return "autostart on: " + strings.Join(on, ", ")
}

func removeUnit(unit, wants string) error {
	_, err1 := removeEntry(wants)
	_, err2 := removeEntry(unit)
	_, err3 := removeEntry(wantsLink(unit, "default.target"))
	return errors.Join(err1, err2, err3)
}

// wantsLink is the link that enables unit in target, as `systemctl --user
// enable` makes it.
func wantsLink(unit, target string) string {
	return filepath.Join(filepath.Dir(unit), target+".wants", filepath.Base(unit))
}
