package doctor

import (
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
