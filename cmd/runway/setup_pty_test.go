//go:build linux || darwin

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupAsksAtATerminal runs `runway setup` on a real pseudo-terminal:
// it shows the plan and asks; "y" writes, anything else writes nothing.
func TestSetupAsksAtATerminal(t *testing.T) {
	for _, answer := range []string{"y", "n", ""} {
		t.Run("answer "+answer, func(t *testing.T) {
			home := t.TempDir()
			settings := filepath.Join(home, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
				t.Fatal(err)
			}
			const before = "{\n  \"model\": \"opus\"\n}\n"
			if err := os.WriteFile(settings, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := runwayCommand(t, "setup")
			cmd.Env = childEnv("HOME="+home, "XDG_CONFIG_HOME="+home+"/.config",
				"XDG_STATE_HOME="+home+"/.local/state", "CLAUDE_CONFIG_DIR=", "CODEX_HOME=",
				"DBUS_SESSION_BUS_ADDRESS=unix:path="+home+"/no-bus")
			tty, out, read := startPTY(t, cmd)
			eventually(t, "the question", func() bool { return strings.Contains(out.String(), "Make these changes? [y/N]") })
			if _, err := tty.Write([]byte(answer + "\n")); err != nil {
				t.Fatal(err)
			}
			if err := exitOf(t, cmd); err != nil {
				t.Fatalf("%v: %q", err, out.String())
			}
			tty.Close()
			<-read
			got, _ := os.ReadFile(settings)
			if answer == "y" {
				if !strings.Contains(string(got), `"statusLine": {"type": "command", "command": "runway statusline"}`) {
					t.Fatalf("not written:\n%s\n%q", got, out.String())
				}
				return
			}
			if string(got) != before || !strings.Contains(out.String(), "Nothing written.") {
				t.Fatalf("answer %q wrote:\n%s\n%q", answer, got, out.String())
			}
			if _, err := os.Stat(settings + ".runway-backup"); err == nil {
				t.Fatal("a backup without consent")
			}
		})
	}
}
