package runway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// loginDir makes a Claude config folder logged in as account uuid, with
// the e-mail and organisation .claude.json holds beside it.
func loginDir(t *testing.T, dir, uuid string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := fmt.Sprintf(`{"numStartups":3,"oauthAccount":{"accountUuid":%q,"emailAddress":"ann.secret@example.com","organizationUuid":"org-1","organizationName":"Secret Org"}}`, uuid)
	if err := os.WriteFile(filepath.Join(dir, ".claude.json"), []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Claude Code under two logins at once (CLAUDE_CONFIG_DIR=~/.claude-work
// and ~/.claude-home): each statusline records its own login's windows,
// and every surface shows both, each with its own sessions, burn and
// verdict. The later reset of one never stands for the other's percent.
func TestTwoClaudeLogins(t *testing.T) {
	w := newWorld(t)
	work, home := filepath.Join(w.dir, ".claude-work"), filepath.Join(w.dir, ".claude-home")
	ids := []string{"11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"}
	loginDir(t, work, ids[0])
	loginDir(t, home, ids[1])
	env := w.env()
	env.Roots = tail.Roots{Claude: []string{work, home}}

	base := w.start.Add(time.Hour)
	resets := map[string]time.Time{work: base.Add(2 * time.Hour), home: base.Add(4 * time.Hour)}
	type played struct {
		c    *synth.Claude
		path string
	}
	sessions := map[string]played{}
	for i, dir := range []string{work, home} {
		id := fmt.Sprintf("%d0000000-0000-4000-8000-00000000000%d", i+1, i+1)
		sessions[dir] = played{&synth.Claude{SessionID: id, Cwd: "/src/" + filepath.Base(dir), Model: "claude-sonnet-4-5-20250929"},
			filepath.Join(dir, "projects", "-src", id+".jsonl")}
	}
	var lines map[string]string
	at := base
	for n := 1; n <= 20; n++ {
		at = base.Add(time.Duration(n) * 30 * time.Second)
		lines = map[string]string{}
		// Work climbs 0.1 % a reply, home 0.5 %: home runs low.
		for dir, used := range map[string]float64{work: 30 + float64(n)*0.1, home: 80 + float64(n)*0.5} {
			s := sessions[dir]
			w.write(s.path, s.c.User(at.Add(-10*time.Second), 300))
			w.write(s.path, s.c.Response(at, fmt.Sprintf("msg_%s_%04d", s.c.SessionID[:4], n), fmt.Sprintf("req_%s_%04d", s.c.SessionID[:4], n),
				synth.Usage{Input: 12, Output: 900, CacheCreation: 1500, CacheRead: 40000}, 1, "end_turn")...)
			line, err := statusline(env, statuslineStdin(s.c.SessionID, s.path, used, resets[dir]), at.Add(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			lines[dir] = line
		}
	}
	now := at.Add(2 * time.Second)
	snap := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	line := text.Line(snap, time.UTC)
	if !strings.Contains(line, "claude (work) 5h 32%") || !strings.Contains(line, "claude (home) 5h 90% ") {
		t.Errorf("line %q: want each login's own 5h window", line)
	}
	for _, p := range snap.Providers {
		want := map[string]time.Time{"work": resets[work], "home": resets[home]}[p.AccountLabel]
		if p.Window == nil || !p.Window.ResetsAt.Equal(want) {
			t.Errorf("%s: window %+v, want its own reset %v", p.Name(), p.Window, want)
		}
		mine := snap.SessionsOfStatus(p)
		if len(mine) != 1 || mine[0].Project != "/src/"+filepath.Base(map[string]string{"work": work, "home": home}[p.AccountLabel]) {
			t.Errorf("%s: sessions %+v, want its own one", p.Name(), mine)
		}
	}
	if v, why := burn.Gate(snap); v != burn.RunsOut || !strings.Contains(why, "claude (home)") {
		t.Errorf("gate %v (%s), want RunsOut for home's low window", v, why)
	}
	// Each session's statusline is about its own login.
	if !strings.Contains(lines[work], "claude (work) 5h 32%") || !strings.Contains(lines[home], "claude (home) 5h 90%") {
		t.Errorf("statuslines %q", lines)
	}
	report := text.Report(snap, time.UTC)
	js, _ := json.Marshal(snap)
	for _, out := range []string{line, report, string(js), lines[work], lines[home]} {
		if strings.Contains(out, "secret") || strings.Contains(out, "Secret") || strings.Contains(out, "11111111-") {
			t.Errorf("the login's e-mail, organisation or id was shown: %s", out)
		}
	}
	// Each sample in the log carries its login's fingerprint, never the id.
	logged, _ := os.ReadFile(filepath.Join(env.StateDir, quota.LogName))
	for _, id := range ids {
		if strings.Contains(string(logged), id) {
			t.Error("the sample log holds an account id")
		}
		if !strings.Contains(string(logged), `"account":"`+quota.AccountFingerprint(id)+`"`) {
			t.Errorf("no sample of account %s in the log:\n%s", quota.AccountFingerprint(id), logged)
		}
	}
	if !strings.Contains(string(js), `"account_label":"work"`) {
		t.Errorf("JSON names no login: %s", js)
	}
	if ls := env.ClaudeLogins(); len(ls) != 2 || ls[0].Label != "work" && ls[1].Label != "work" || ls[0].Label != "home" && ls[1].Label != "home" {
		t.Errorf("the logins doctor lists: %+v", ls)
	}
}

// A session before its first reply (no usage, no rate_limits yet) is shown
// its own folder's login, never the other login's figure: it showed
// "claude (home) 5h 90%" in a session of ~/.claude-work.
func TestStatuslineOfANewSessionIsItsFoldersLogin(t *testing.T) {
	w := newWorld(t)
	work, home := filepath.Join(w.dir, ".claude-work"), filepath.Join(w.dir, ".claude-home")
	loginDir(t, work, "11111111-0000-4000-8000-000000000001")
	loginDir(t, home, "22222222-0000-4000-8000-000000000002")
	env := w.env()
	env.Roots = tail.Roots{Claude: []string{work, home}}
	at := w.start.Add(time.Hour)
	c := &synth.Claude{SessionID: "20000000-0000-4000-8000-000000000002", Cwd: "/src/home", Model: "claude-sonnet-4-5-20250929"}
	path := filepath.Join(home, "projects", "-src", c.SessionID+".jsonl")
	w.write(path, c.Response(at, "msg_h1", "req_h1", synth.Usage{Input: 12, Output: 900, CacheRead: 40000}, 1, "end_turn")...)
	if _, err := statusline(env, statuslineStdin(c.SessionID, path, 90, at.Add(2*time.Hour)), at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	fresh := fmt.Sprintf(`{"session_id":"10000000-0000-4000-8000-00000000000a","transcript_path":%q}`,
		filepath.Join(work, "projects", "-src", "10000000-0000-4000-8000-00000000000a.jsonl"))
	line, err := statusline(env, []byte(fresh), at.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(line, "home") || strings.Contains(line, "90%") {
		t.Errorf("a new session of ~/.claude-work shows %q, want work's line (no data yet)", line)
	}
}

func TestLoginLabel(t *testing.T) {
	home := filepath.FromSlash("/home/ann")
	for dir, want := range map[string]string{
		"/home/ann/.claude":                                     "default",
		"/home/ann/.config/claude":                              "default",
		"/home/ann/.claude-work":                                "work",
		"/home/ann/.claude_Personal":                            "personal",
		"/home/ann/work-claude":                                 "work",
		"/home/ann/work/.claude":                                "work",
		"/srv/acme/.config/claude":                              "config",
		"/home/ann/claude":                                      "", // the home folder's name is no label
		"/.claude":                                              "",
		"/home/ann/.claude-\x1b[31mred":                         "[31mred", // no escape reaches a terminal
		"/home/ann/.claude-a-very-long-name-for-a-login-folder": "a-very-long-name-for-a-l",
	} {
		if got := loginLabel(filepath.FromSlash(dir), home); got != want {
			t.Errorf("loginLabel(%s) = %q, want %q", dir, got, want)
		}
	}
	if got := loginLabel("/home/ann/.claude-\x1b[31m\x07", home); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("control characters kept: %q", got)
	}
}

// One login named by its config folder changes nothing a surface shows:
// the same logs give the same line, report and JSON as without the login.
func TestOneClaudeLoginChangesNothing(t *testing.T) {
	render := func(login bool) string {
		w := newWorld(t)
		if login {
			loginDir(t, w.claudeDir, "11111111-0000-4000-8000-000000000001")
		}
		base := w.start.Add(time.Hour)
		s := w.session("aaaa0000-0000-4000-8000-00000000000a")
		at := base
		for i := 1; i <= 15; i++ {
			at = base.Add(time.Duration(i) * 20 * time.Second)
			s.reply(at, 40+float64(i)*0.2)
		}
		now := at.Add(2 * time.Second)
		snap := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
		js, _ := json.Marshal(snap)
		return text.Line(snap, time.UTC) + "\n" + text.Report(snap, time.UTC) + "\n" + string(js) + "\n" + s.statusline(now)
	}
	without, with := render(false), render(true)
	if without != with {
		t.Errorf("one login changed the output:\nwithout %s\nwith    %s", without, with)
	}
}

// A Claude plan login whose sessions burn with no source of its percent
// (no statusline, offline) said "claude no data · codex … ☺" and exit 0;
// an API-key login has no window, so the gate stays open for it.
func TestSubscriptionBurningWithoutAPercent(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(2 * time.Hour)
	w.claudeTurn(now.Add(-30 * time.Second))
	w.codexTurn(now.Add(-30*time.Second), 10)
	// A Console (API-billed) login writes an oauthAccount too: no proof.
	loginDir(t, w.claudeDir, "acct-console")
	env := w.env()
	at := func() time.Time { return now }
	gate := func() (burn.Verdict, string) {
		return burn.Gate(env.Evaluate(t.Context(), EvalOptions{Now: at}).Snapshot)
	}
	if v, why := gate(); v != burn.Lasts {
		t.Fatalf("API-key login: %d (%s), want 0", v, why)
	}
	creds := `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-x","refreshToken":"r","expiresAt":1,"scopes":["user:inference","user:profile"],"subscriptionType":"max","rateLimitTier":"default_claude_max_20x"}}`
	if err := os.WriteFile(filepath.Join(w.claudeDir, ".credentials.json"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, why := gate(); v != burn.CannotTell || !strings.Contains(why, "subscription") || !strings.Contains(why, "runway setup") {
		t.Fatalf("plan login: %d (%s), want 3 saying how to fix it", v, why)
	}
	requireDoctor(t, env, at, false, markWarn, "runway now --check", "subscription", "runway setup")
}
