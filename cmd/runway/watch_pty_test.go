//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// startPTY starts cmd on a pseudo-terminal of 24 rows by 80 columns; out
// collects what it writes until read closes.
func startPTY(t *testing.T, cmd *exec.Cmd) (tty *os.File, out *lockedBuffer, read <-chan struct{}) {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	out = &lockedBuffer{}
	done := make(chan struct{})
	go func() { io.Copy(out, tty); close(done) }()
	return tty, out, done
}

// TestWatchRestoresTerminal runs `runway watch --demo` on a real pseudo-
// terminal: after q, and after SIGTERM, it has left the alternate screen and
// shown the cursor again, and exits 0. With NO_COLOR it draws no colour.
func TestWatchRestoresTerminal(t *testing.T) {
	colour := regexp.MustCompile(`\x1b\[[0-9;]*3[0-7]m`)
	for _, how := range []string{"q", "SIGTERM", "NO_COLOR"} {
		t.Run(how, func(t *testing.T) {
			home := t.TempDir()
			cmd := runwayCommand(t, "watch", "--demo")
			// The child is a user's terminal, not a CI log.
			cmd.Env = childEnv("TERM=xterm-256color", "TZ=UTC", "HOME="+home,
				"XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.local/state")
			if how == "NO_COLOR" {
				cmd.Env = append(cmd.Env, "NO_COLOR=1")
			}
			tty, out, read := startPTY(t, cmd)
			// The first frame: the demo's busiest session is on screen.
			eventually(t, "first frame", func() bool { return strings.Contains(out.String(), "shop-api") })
			if !strings.Contains(out.String(), "\x1b[?1049h") {
				t.Fatalf("the view did not enter the alternate screen: %q", out.String())
			}
			if c := colour.FindString(out.String()); (c != "") != (how != "NO_COLOR") {
				t.Errorf("%s: colour sequence %q", how, c)
			}
			if how != "SIGTERM" {
				tty.Write([]byte("q"))
			} else {
				cmd.Process.Signal(syscall.SIGTERM)
			}
			var exit *exec.ExitError
			if err := exitOf(t, cmd); errors.As(err, &exit) {
				t.Errorf("exit status %d after %s; its output: %q", exit.ExitCode(), how, out.String())
			} else if err != nil {
				t.Fatal(err)
			}
			tty.Close()
			<-read
			s := out.String()
			tail := s[strings.LastIndex(s, "shop-api"):]
			for _, seq := range []struct{ name, code string }{{"leave the alternate screen", "\x1b[?1049l"}, {"show the cursor", "\x1b[?25h"}} {
				if !strings.Contains(tail, seq.code) {
					t.Errorf("after %s the view did not %s (%q); its last output: %q", how, seq.name, seq.code, tail)
				}
			}
		})
	}
}

// TestBareRunwayWatchesAtATerminal: runway with no command, at a terminal
// without a desktop (an SSH login), is runway watch, said in one line;
// before, it sat in the foreground as a notifier after two warnings.
func TestBareRunwayWatchesAtATerminal(t *testing.T) {
	home := t.TempDir()
	cmd := runwayCommand(t, "--demo")
	cmd.Env = childEnv("TERM=xterm-256color", "TZ=UTC", "HOME="+home, "XDG_SESSION_TYPE=tty",
		"XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.local/state")
	tty, out, _ := startPTY(t, cmd)
	eventually(t, "watch frame", func() bool { return strings.Contains(out.String(), "shop-api") })
	tty.Write([]byte("q"))
	if err := exitOf(t, cmd); err != nil {
		t.Errorf("%v; its output: %q", err, out.String())
	}
	if n := strings.Count(out.String(), "runway: no desktop here: showing runway watch"); n != 1 {
		t.Errorf("said %d times that it shows runway watch: %q", n, out.String())
	}
}
