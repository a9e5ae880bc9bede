package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/tail"
)

func TestTrayStartFixByOS(t *testing.T) {
	if fix := trayStartFix("windows"); strings.Contains(fix, "&") || !strings.Contains(fix, "`runway tray`") {
		t.Errorf("Windows is told %q", fix)
	}
	if fix := trayStartFix("linux"); !strings.Contains(fix, "`runway tray &`") {
		t.Errorf("Linux is told %q", fix)
	}
}

// doctor's statusline setup check says what it found and how sure it is:
// it matched the words runway and statusline anywhere, so a wrapper script
// was missed and an unrelated command matched.
func TestTrustStatuslineSetupCheck(t *testing.T) {
	home := t.TempDir()
	claude := filepath.Join(home, ".claude")
	bin := filepath.Join(home, "bin")
	for _, d := range []string{claude, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(bin, "wrap.sh"), []byte("#!/bin/sh\ninput=$(cat)\nprintf %s \"$input\" | exec runway statusline\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "other.sh"), []byte("#!/bin/sh\necho my line\n"), 0o755)
	env := runway.Env{Home: home, Roots: tail.Roots{Claude: []string{claude}}}
	for cmd, want := range map[string][]string{
		"runway statusline": {CheckOK, "certain"},
		"/usr/local/bin/runway statusline --then 'x.sh'": {CheckOK, "certain"},
		"RUNWAY_STATE_DIR=/x runway statusline":          {CheckOK, "certain"},
		`bash -c 'cat | runway statusline'`:              {CheckOK, "likely: read from the command"},
		"~/bin/wrap.sh":                                  {CheckOK, "likely: read from the script"},
		"~/bin/other.sh":                                 {CheckWarn, "not in it"},
		"echo runway-statusline-off":                     {CheckInfo, "cannot tell"},
		"my-runway --no-statusline":                      {CheckInfo, "cannot tell"},
	} {
		settings := fmt.Sprintf(`{"statusLine":{"type":"command","command":%q}}`, cmd)
		if err := os.WriteFile(filepath.Join(claude, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		c := statuslineCheck(env)
		if c.State != want[0] || !strings.Contains(c.Detail, want[1]) {
			t.Errorf("%s: %s %q, want %s with %q", cmd, c.State, c.Detail, want[0], want[1])
		}
	}
}

// TestDesktopChecks: without a desktop, no tray host and no notification
// server are one fact in plain words, not two warnings with DBus's text;
// on a desktop, one cause is said once.
func TestDesktopChecks(t *testing.T) {
	noBus := errors.New("no session bus: dbus: couldn't determine address of session bus")
	got := desktopChecks(Desktop{TrayHost: fmt.Errorf("no tray host: %w", noBus), Notifications: noBus})
	if len(got) != 1 || got[0].State != CheckInfo || strings.Contains(got[0].Detail, "dbus") || !strings.Contains(got[0].Detail, "runway watch") {
		t.Errorf("no desktop: %+v", got)
	}
	got = desktopChecks(Desktop{Present: true, TrayHost: fmt.Errorf("no tray host: %w", noBus), Notifications: noBus})
	if len(got) != 1 || got[0].State != CheckWarn || strings.Count(Render([]Section{{Checks: got}}), "dbus:") != 1 {
		t.Errorf("a desktop without its bus: %+v", got)
	}
	got = desktopChecks(Desktop{Present: true, NotifyServer: "dunst 1.9"})
	if len(got) != 2 || got[0].State != CheckOK || got[1].Detail != "dunst 1.9" {
		t.Errorf("a desktop: %+v", got)
	}
}
