//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

var command = exec.Command

// copyText uses whichever clipboard tool the session has: wl-copy on
// Wayland, xclip or xsel on X11.
func copyText(text string) error {
	var tools [][]string
	if os.Getenv("WAYLAND_DISPLAY") != "" {
		tools = append(tools, []string{"wl-copy"})
	}
	tools = append(tools, []string{"xclip", "-selection", "clipboard"}, []string{"xsel", "--clipboard", "--input"})
	for _, t := range tools {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		cmd := command(t[0], t[1:]...)
		cmd.Stdin = strings.NewReader(text)
		return cmd.Run()
	}
	return errors.New("no clipboard tool (install wl-clipboard, xclip or xsel)")
}

// menuLabel escapes a label for dbusmenu, where "_" marks an access key: a
// project named my_app would otherwise show as "myapp".
func menuLabel(s string) string { return strings.ReplaceAll(s, "_", "__") }
