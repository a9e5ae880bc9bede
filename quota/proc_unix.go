//go:build unix

package quota

import (
	"os/exec"
	"syscall"
)

// ownGroup gives the child its own process group, so a kill reaches what it
// spawned (npm's codex launcher runs the real binary as its child).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the child's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		cmd.Process.Kill()
	}
}
