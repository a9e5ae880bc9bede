package runway

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/codextest"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// TestRealCodexLoggedIn: the engine and doctor with the real codex
// app-server, whose back end answers the windows, then 429, then 401.
// realCodex is the world's Env online with the real codex, logged in to a
// usage back end answering 37 % and 12 %; Codex's home is the one runway
// reads the rollouts from, as for a user.
func realCodex(t *testing.T, w *world, now time.Time) (Env, *codextest.Backend) {
	codex := codextest.Binary(t)
	backend := codextest.NewBackend(t)
	backend.SetWindows(37, 12, now.Add(2*time.Hour).Truncate(time.Second), now.Add(72*time.Hour).Truncate(time.Second))
	codextest.LoggedIn(t, w.codexDir, backend)
	t.Setenv("CODEX_HOME", w.codexDir)
	t.Setenv("HOME", t.TempDir())
	env := w.env()
	env.Config.Offline = false
	env.Config.CodexPath = codex
	env.CodexTimeout = 20 * time.Second
	return env, backend
}

func TestRealCodexLoggedIn(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(10 * time.Minute)
	env, backend := realCodex(t, w, now)

	// An active Codex thread whose rollout carries no percent: the engine
	// asks the app-server.
	w.codexTurn(now.Add(-10*time.Second), -1)
	l := startLive(t, env, now, func(o *EngineOptions) { o.PollEvery = 5 * time.Millisecond })
	// next moves past the app-server's pause, keeping the thread active.
	next := func(mode string) time.Time {
		backend.Set(mode)
		at := l.source(quota.NameCodexRPC).NextTry.Add(time.Second)
		l.clock.Set(at)
		w.codexTurn(at, -1)
		return at
	}
	codexLogs := func() []string { return l.logs.matching("codex app-server") }

	l.waitFor("codex-rpc's 37%", func(s burn.Snapshot) bool {
		for _, p := range s.Providers {
			if p.Provider == burn.Codex && p.Window != nil && p.Window.Source == burn.SourceCodexRPC && p.Window.UsedPercent == 37 {
				return len(s.Warnings) == 0 || findWarning(s.Warnings, "odex") == ""
			}
		}
		return false
	})
	// While the engine runs, doctor shows its sources and asks nothing.
	calls := backend.Calls()
	c, out := doctorCheck(t, env, l.clock.Now, true, quota.NameCodexRPC)
	if c.mark != markOK || !strings.HasPrefix(c.detail, "read 5h 37%, weekly 12%") {
		t.Errorf("doctor beside the engine: %+v\n%s", c, out)
	}
	if !strings.Contains(out, "\naccount sources, as the tray sees them\n") {
		t.Errorf("doctor did not use the engine's sources:\n%s", out)
	}
	if backend.Calls() != calls {
		t.Errorf("doctor asked the usage back end %d times while the engine runs", backend.Calls()-calls)
	}

	// Busy: the cause and when it asks again, the windows kept.
	at := next(codextest.Busy)
	if !l.waitFor("the 429 warning", hasWarning("Codex usage service busy (429), retrying at ")) {
		t.Fatalf("snapshot warnings %q; sources %+v", l.e.Latest().Warnings, l.e.Sources())
	}
	st := l.source(quota.NameCodexRPC)
	if want := "Codex usage service busy (429), retrying at " + text.Clock(st.NextTry, at, time.Local); !slices.Contains(l.e.Latest().Warnings, want) {
		t.Errorf("warnings %q, want %q", l.e.Latest().Warnings, want)
	}
	requireDoctor(t, env, l.clock.Now, true, markWarn, quota.NameCodexRPC, "backoff: ", "429", "(the tray asks again at ")
	// The 5-ms poll loop meets the stored error at every turn: logged once.
	if got := codexLogs(); len(got) != 1 || !strings.Contains(got[0], "429") {
		t.Errorf("log lines about the app-server: %q, want the 429 once", got)
	}

	// The login expired: logged out with the fix, in the snapshot and doctor.
	next(codextest.Expired)
	if !l.waitFor("the expired login", func(s burn.Snapshot) bool {
		return slices.Contains(s.Warnings, "Codex login expired — run `codex login`")
	}) {
		t.Fatalf("snapshot warnings %q; sources %+v", l.e.Latest().Warnings, l.e.Sources())
	}
	c, out = doctorCheck(t, env, l.clock.Now, true, quota.NameCodexRPC)
	if c.mark != markWarn || !strings.HasPrefix(c.detail, "logged_out: ") || !strings.Contains(c.detail, "HTTP 401") || c.fix != "run `codex login`" {
		t.Errorf("doctor on the expired login: %+v\n%s", c, out)
	}
	if got := codexLogs(); len(got) != 2 || !strings.Contains(got[1], "401") {
		t.Errorf("log lines about the app-server: %q, want the 429 and the 401 once each", got)
	}

	// Logged in again: the warning goes, the new figures show.
	backend.SetWindows(41, 13, now.Add(2*time.Hour).Truncate(time.Second), now.Add(72*time.Hour).Truncate(time.Second))
	next(codextest.OK)
	l.waitFor("codex-rpc's 41%", func(s burn.Snapshot) bool {
		for _, p := range s.Providers {
			if p.Provider == burn.Codex && p.Window != nil && p.Window.Source == burn.SourceCodexRPC && p.Window.UsedPercent == 41 {
				return findWarning(s.Warnings, "odex") == ""
			}
		}
		return false
	})
	if n := backend.BadAuth(); n != 0 {
		t.Errorf("%d usage requests without the login's token and account", n)
	}
}

// TestRealCodexDoctorOneShot is `runway doctor` with no tray running: it
// asks the real app-server once and shows what it read, or why it could
// not, with no "next try" (a one-shot command tries no more).
func TestRealCodexDoctorOneShot(t *testing.T) {
	w := newWorld(t)
	now := time.Now()
	env, backend := realCodex(t, w, now)
	clock := func() time.Time { return now }

	c, out := doctorCheck(t, env, clock, true, quota.NameCodexRPC)
	if c.mark != markOK || c.detail != "read 5h 37%, weekly 12%" {
		t.Errorf("doctor, back end answering: %+v\n%s", c, out)
	}
	if w, _ := doctorCheck(t, env, clock, true, "codex 5h", "37% used, from codex-rpc"); w.name == "" {
		t.Errorf("the windows section does not show what codex-rpc read:\n%s", out)
	}
	for _, mode := range []string{codextest.Busy, codextest.Expired} {
		backend.Set(mode)
		c, out = doctorCheck(t, env, clock, true, quota.NameCodexRPC)
		if strings.Contains(out, "next try") {
			t.Errorf("%s: a one-shot doctor speaks of a next try:\n%s", mode, out)
		}
		switch mode {
		case codextest.Busy:
			if c.mark != markWarn || !strings.HasPrefix(c.detail, "backoff: ") || !strings.Contains(c.detail, "429") {
				t.Errorf("429: %+v\n%s", c, out)
			}
		case codextest.Expired:
			if c.mark != markWarn || !strings.HasPrefix(c.detail, "logged_out: ") || c.fix != "run `codex login`" {
				t.Errorf("401: %+v\n%s", c, out)
			}
		}
	}
}
