//go:build linux || darwin

package main

import (
	"strings"
	"testing"
)

// TestStartAsksTheTerminalNothing runs commands on a pseudo-terminal that
// answers nothing: runway writes no query to it (a library's init once waited
// five seconds for a colour answer), and a command it starts sees the user's TERM.
func TestStartAsksTheTerminalNothing(t *testing.T) {
	env := func(home string) []string {
		return childEnv("TERM=xterm-256color", "TZ=UTC", "HOME="+home,
			"XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.local/state",
			"CLAUDE_CONFIG_DIR="+home+"/claude", "CODEX_HOME="+home+"/codex")
	}
	for _, run := range []struct {
		args []string
		want string
	}{
		{[]string{"version"}, "runway"},
		{[]string{"now", "--demo"}, "claude 5h"},
		// No logs, and a person at a terminal: the demo, said to be one.
		{[]string{"now"}, "demo: claude 5h"},
	} {
		args := run.args
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			home := t.TempDir()
			cmd := runwayCommand(t, args...)
			cmd.Env = env(home)
			tty, out, read := startPTY(t, cmd)
			exitOf(t, cmd) // its output says how it went
			tty.Close()
			<-read
			s := out.String()
			if !strings.Contains(s, run.want) {
				t.Errorf("%v wrote %q, want %q in it", args, s, run.want)
			}
			for _, q := range []string{"\x1b]11;?", "\x1b[6n"} {
				if strings.Contains(s, q) {
					t.Errorf("%v wrote the terminal query %q: %q", args, q, s)
				}
			}
		})
	}
	t.Run("TERM of a child", func(t *testing.T) {
		cmd := runwayCommand(t, "statusline", "--then", "echo TERM=$TERM")
		cmd.Env = env(t.TempDir())
		out, _ := cmd.Output()
		if !strings.Contains(string(out), "TERM=xterm-256color") {
			t.Errorf("the --then command did not see the user's TERM: %q", out)
		}
	})
}
