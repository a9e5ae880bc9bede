package tray

import (
	"fmt"
	"os"
	"path/filepath"
)

func autostart(action string, opts AutostartOptions) (string, error) {
	dir := opts.Dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("autostart: no home folder: %w", err)
		}
		dir = filepath.Join(home, "Library", "LaunchAgents")
	}
	plist := filepath.Join(dir, launchAgentLabel+".plist")
	switch action {
	case "on":
		if err := writeEntry(plist, launchAgent(opts.Exec, opts.args())); err != nil {
			return "", err
		}
		return fmt.Sprintf("autostart on: %s runs at login (now: launchctl load %s)", plist, plist), nil
	case "off":
		had, err := removeEntry(plist)
		if err != nil {
			return "", err
		}
		if !had {
			return "autostart was already off", nil
		}
		return "autostart off (it stays running until you quit it)", nil
	}
	if _, err := os.Stat(plist); err == nil {
		return "autostart on: " + plist, nil
	}
	return "autostart off", nil
}
