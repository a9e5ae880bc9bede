package tray

import (
	"os/exec"
	"strings"
)

func copyText(text string) error {
	cmd := exec.Command("pbcopy")
	cmd.Stdin = strings.NewReader(text)
	return cmd.Run()
}

// menuLabel is the label as it is: macOS menus have no access keys.
func menuLabel(s string) string { return s }
