//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package tray

import (
	"errors"
	"os/exec"
)

var command = exec.Command

func copyText(string) error { return errors.New("no clipboard on this system") }

func menuLabel(s string) string { return s }
