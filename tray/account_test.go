package tray

import (
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

// Two Claude logins are two groups, each named by its login and listing
// its own sessions; a notification names the login too.
func TestRenderTwoLogins(t *testing.T) {
	s := loadSnapshot(t, "runout")
	claude := *s.Provider(burn.Claude)
	work, home := claude, claude
	work.Account, work.AccountLabel = "aaaa1111", "work"
	home.Account, home.AccountLabel = "bbbb2222", "home"
	for i := range s.Sessions {
		if s.Sessions[i].Provider == burn.Claude {
			s.Sessions[i].Account = work.Account
		}
	}
	s.Providers = append([]burn.ProviderStatus{work, home}, s.Providers[1:]...)
	v := render(s, time.UTC, SessionsAuto, 5, false)
	if !strings.HasPrefix(v.Groups[0].Header, "Claude (work) 5h") || !strings.HasPrefix(v.Groups[1].Header, "Claude (home) 5h") {
		t.Errorf("headers %q, %q", v.Groups[0].Header, v.Groups[1].Header)
	}
	if len(v.Groups[0].Sessions) == 0 || len(v.Groups[1].Sessions) != 0 {
		t.Errorf("work's sessions %q, home's %q: each login lists its own", v.Groups[0].Sessions, v.Groups[1].Sessions)
	}
	if lines := strings.Split(v.Tooltip, "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "Claude (home) 5h") {
		t.Errorf("tooltip %q", v.Tooltip)
	}
	summary, _ := text.Notice(burn.Notice{Kind: burn.NoticeLow, Provider: burn.Claude, Window: burn.FiveHour, UsedPercent: 91,
		Account: home.Account, AccountLabel: "home"}, s.At, time.UTC)
	if !strings.HasPrefix(summary, "Claude (home) 5h") {
		t.Errorf("notification %q names no login", summary)
	}
}
