//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// stopGroup runs cmd in its own process group and makes a cancelled
// context kill the group, so a shell's children go with it.
func stopGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
