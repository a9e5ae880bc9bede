//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func autostart(action string, opts AutostartOptions) (string, error) {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "", fmt.Errorf("autostart: no config folder: %w", err)
		}
	}
	e := entries{desktop: filepath.Join(dir, "autostart", "runway.desktop"), unit: filepath.Join(dir, "systemd", "user", "runway.service")}
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

// entries are the places a login start can be: an XDG autostart entry, or
// a systemd user unit and the link that enables it in its target.
type entries struct{ desktop, unit string }

// wants is the link that enables the unit in target, as `systemctl --user
// enable` makes it.
func (e entries) wants(target string) string {
	return filepath.Join(filepath.Dir(e.unit), target+".wants", filepath.Base(e.unit))
}

// links are the unit's links: the tray's and runway serve's.
func (e entries) links() []string {
	return []string{e.wants("graphical-session.target"), e.wants("default.target")}
}

func (e entries) onSystemd(opts AutostartOptions) (string, error) {
	content, err := systemdUnit(opts.Exec, opts.args())
	if err != nil {
		return "", err
	}
	if err := writeEntry(e.unit, content); err != nil {
		return "", err
	}
	// One link, the tray's or runway serve's, made as `systemctl --user
	// enable` does without needing a running user manager; no XDG entry.
	wants := e.wants(unitTarget(opts.args()))
	if err := removeAll(append(e.links(), e.desktop)...); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(wants), 0o755); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	if err := os.Symlink(e.unit, wants); err != nil {
		return "", fmt.Errorf("autostart: %w", err)
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
	if err := removeAll(append(e.links(), e.unit)...); err != nil {
		return "", err
	}
	return fmt.Sprintf("autostart on: %s starts %q at login", e.desktop, strings.Join(append([]string{opts.Exec}, opts.args()...), " ")), nil
}

func (e entries) off() (string, error) {
	_, desktopErr := os.Lstat(e.desktop)
	_, unitErr := os.Lstat(e.unit)
	if err := removeAll(append(e.links(), e.unit, e.desktop)...); err != nil {
		return "", err
	}
	if desktopErr != nil && unitErr != nil {
		return "autostart was already off", nil
	}
	return "autostart off", nil
}

func (e entries) status() string {
	var on []string
	if _, err := os.Stat(e.desktop); err == nil {
		on = append(on, e.desktop)
	}
	links := e.links()
	if _, err := os.Stat(links[0]); err == nil {
		on = append(on, e.unit+" (systemd, enabled)")
	} else if _, err := os.Stat(links[1]); err == nil {
		on = append(on, e.unit+" (systemd, runway serve, enabled)")
	} else if _, err := os.Stat(e.unit); err == nil {
		on = append(on, e.unit+" (systemd, not enabled)")
	}
	if len(on) == 0 {
		return "autostart off"
	}
	return "autostart on: " + strings.Join(on, ", ")
}

// removeAll removes each file that is there.
func removeAll(paths ...string) error {
	var errs []error
	for _, p := range paths {
		_, err := removeEntry(p)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
