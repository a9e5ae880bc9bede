package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentrunway/runway/internal/demo"
)

// TestHasDesktop: a display says a desktop on Linux; a session bus alone
// does not (an SSH login on a systemd system has one); macOS and Windows
// always have one.
func TestHasDesktop(t *testing.T) {
	for _, c := range []struct {
		goos string
		env  map[string]string
		want bool
	}{
		{"linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"linux", map[string]string{"XDG_SESSION_TYPE": "wayland"}, true},
		{"linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "XDG_SESSION_TYPE": "tty"}, false},
		{"linux", nil, false},
		{"freebsd", nil, false},
		{"darwin", nil, true},
		{"windows", nil, true},
	} {
		if got := hasDesktop(c.goos, func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%s %v: hasDesktop %v, want %v", c.goos, c.env, got, c.want)
		}
	}
}

// TestCheckWhenItsReaderIsGone: the gate's exit status is its verdict even
// when nothing reads its output (a pipe whose reader exited): it was 141,
// death by SIGPIPE, which no doc lists and `set -o pipefail` passes on.
func TestCheckWhenItsReaderIsGone(t *testing.T) {
	dir := t.TempDir()
	end := time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)
	if err := demo.Write(dir, end); err != nil {
		t.Fatal(err)
	}
	cmd := runwayCommand(t, "now", "--check", "--offline", "--long", "--at", end.Format(time.RFC3339))
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"), "CODEX_HOME="+filepath.Join(dir, "codex"),
		"RUNWAY_STATE_DIR="+filepath.Join(dir, "state"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first write
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("runway now --check into a closed pipe: %v, want exit status 1 (the demo's Claude window runs out)", err)
	}
}
