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
	switch action {
	case "on":
		// One mechanism at a time, or the tray would start twice.
		if opts.Systemd {
			// The tray's link or runway serve's: never both.
			other := wants
			if wants = wantsLink(unit, unitTarget(opts.Args)); wants == other {
				other = wantsLink(unit, "default.target")
			}
			if _, err := removeEntry(other); err != nil {
				return "", err
			}
			content, err := systemdUnit(opts.Exec, opts.Args)
			if err != nil {
				return "", err
			}
			if err := writeEntry(unit, content); err != nil {
				return "", err
			}
			// What `systemctl --user enable` does, without needing a
			// running user manager.
			if err := os.MkdirAll(filepath.Dir(wants), 0o755); err != nil {
				return "", fmt.Errorf("autostart: %w", err)
			}
			if _, err := removeEntry(wants); err != nil {
				return "", err
			}
			if err := os.Symlink(unit, wants); err != nil {
				return "", fmt.Errorf("autostart: %w", err)
			}
			if _, err := removeEntry(desktop); err != nil {
				return "", err
			}
			when := "with the graphical session"
			if unitTarget(opts.Args) == "default.target" {
				when = "with your user manager (for a login on a server: loginctl enable-linger)"
			}
			return fmt.Sprintf("autostart on: %s starts %s (now: systemctl --user daemon-reload && systemctl --user start runway)", unit, when), nil
		}
		content, err := desktopEntry(opts.Exec, opts.Args)
		if err != nil {
			return "", err
		}
		if err := writeEntry(desktop, content); err != nil {
			return "", err
		}
		if err := removeUnit(unit, wants); err != nil {
			return "", err
		}
		return fmt.Sprintf("autostart on: %s starts %q at login", desktop, strings.Join(append([]string{opts.Exec}, opts.Args...), " ")), nil

	case "off":
		had, err := removeEntry(desktop)
		if err != nil {
			return "", err
		}
		_, statErr := os.Lstat(unit)
		if err := removeUnit(unit, wants); err != nil {
			return "", err
		}
		if !had && statErr != nil {
			return "autostart was already off", nil
		}
		return "autostart off", nil
	}

	var on []string
	if _, err := os.Stat(desktop); err == nil {
		on = append(on, desktop)
	}
	if _, err := os.Stat(wants); err == nil {
		on = append(on, unit+" (systemd, enabled)")
	} else if _, err := os.Stat(wantsLink(unit, "default.target")); err == nil {
		on = append(on, unit+" (systemd, runway serve, enabled)")
	} else if _, err := os.Stat(unit); err == nil {
		on = append(on, unit+" (systemd, not enabled)")
	}
	if len(on) == 0 {
		return "autostart off", nil
	}
	return "autostart on: " + strings.Join(on, ", "), nil
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
