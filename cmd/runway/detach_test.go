package main

import "testing"

func TestDetachFor(t *testing.T) {
	for _, c := range []struct {
		goos  string
		procs int
		stay  bool
		want  detachAction
	}{
		{"windows", 1, false, freeConsole},     // Explorer, the Run key at login
		{"windows", 2, false, respawnDetached}, // cmd.exe or PowerShell
		{"windows", 3, false, respawnDetached}, // Windows Terminal: the shell and OpenConsole
		{"windows", 0, false, stayAttached},    // no console: a service, a pipe
		{"windows", 2, true, stayAttached},     // --foreground, or the detached process itself
		{"windows", 1, true, stayAttached},
		{"linux", 2, false, stayAttached}, // elsewhere a terminal's & does it
		{"darwin", 1, false, stayAttached},
	} {
		if got := detachFor(c.goos, c.procs, c.stay); got != c.want {
			t.Errorf("detachFor(%s, %d, %v) = %v, want %v", c.goos, c.procs, c.stay, got, c.want)
		}
	}
}
