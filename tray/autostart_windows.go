package tray

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// autostart keeps a value named runway under the current user's Run key.
func autostart(action string, opts AutostartOptions) (string, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		return "", fmt.Errorf(`autostart: opening HKCU\%s: %w`, runKey, err)
	}
	defer k.Close()
	switch action {
	case "on":
		var cmd []string
		for _, a := range append([]string{opts.Exec}, opts.args()...) {
			cmd = append(cmd, windows.EscapeArg(a))
		}
		line := strings.Join(cmd, " ")
		if err := k.SetStringValue("runway", line); err != nil {
			return "", fmt.Errorf("autostart: %w", err)
		}
		return fmt.Sprintf(`autostart on: HKCU\%s\runway runs %s at login`, runKey, line), nil
	case "off":
		err := k.DeleteValue("runway")
		if errors.Is(err, registry.ErrNotExist) {
			return "autostart was already off", nil
		}
		if err != nil {
			return "", fmt.Errorf("autostart: %w", err)
		}
		return "autostart off", nil
	}
	line, _, err := k.GetStringValue("runway")
	if errors.Is(err, registry.ErrNotExist) {
		return "autostart off", nil
	}
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return "autostart on: " + line, nil
}
