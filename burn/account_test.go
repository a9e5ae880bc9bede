package burn

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

const (
	acctWork = "aaaa1111"
	acctHome = "bbbb2222"
)

func withAcct(s Sample, account string) Sample { s.Account = account; return s }

// twoLogins is Claude Code under two logins at once, their statusline
// samples interleaved: work at 30 % rising 0.2 %/min, resetting in two
// hours; home at 80 % rising 1 %/min, resetting in four and a half. A
// session of each login burns.
func twoLogins() Input {
	now := at(10 * time.Minute)
	resetWork, resetHome := at(2*time.Hour), at(4*time.Hour+30*time.Minute)
	var in Input
	for i := range 11 {
		obs := at(time.Duration(i) * time.Minute)
		in.Samples = append(in.Samples,
			withAcct(smp(Claude, 300, 30+float64(i)*0.2, resetWork, obs, SourceStatusline), acctWork),
			withAcct(smp(Claude, 300, 80+float64(i), resetHome, obs.Add(20*time.Second), SourceStatusline), acctHome),
			withAcct(smp(Claude, 10080, 20, at(72*time.Hour), obs, SourceStatusline), acctWork),
			withAcct(smp(Claude, 10080, 50, at(96*time.Hour), obs.Add(20*time.Second), SourceStatusline), acctHome))
	}
	now = now.Add(time.Minute)
	for _, e := range steady(Claude, "work-session", "", at(5*time.Minute), now, 5*time.Second, 300) {
		e.Account = acctWork
		in.Events = append(in.Events, e)
	}
	for _, e := range steady(Claude, "home-session", "", at(5*time.Minute), now, 5*time.Second, 900) {
		e.Account = acctHome
		in.Events = append(in.Events, e)
	}
	in.Now = now
	return in
}

func claudeOf(t *testing.T, s Snapshot, account string) ProviderStatus {
	t.Helper()
	for _, p := range s.Providers {
		if p.Provider == Claude && p.Account == account {
			return p
		}
	}
	t.Fatalf("no claude status of login %q in %+v", account, s.Providers)
	return ProviderStatus{}
}

// Regression: with two Claude logins, the samples of the one observed last
// decided the windows, and its later reset won over the other's percent.
// Each login now has its own windows, burn, sessions and verdict.
func TestTwoLoginsKeepTheirWindows(t *testing.T) {
	for _, listed := range []bool{false, true} {
		in := twoLogins()
		if listed {
			in.Accounts = []Account{{Claude, acctWork, "work"}, {Claude, acctHome, "home"}}
		}
		s := Compute(in, DefaultConfig())
		if n := len(s.Providers); n != 2 {
			t.Fatalf("listed=%v: %d provider statuses, want one per login: %+v", listed, n, s.Providers)
		}
		work, home := claudeOf(t, s, acctWork), claudeOf(t, s, acctHome)
		if w := work.Window; w == nil || w.UsedPercent != 32 || !w.ResetsAt.Equal(at(2*time.Hour)) {
			t.Errorf("listed=%v: work's 5h window %+v, want 32 %% resetting at %v", listed, w, at(2*time.Hour))
		}
		if w := home.Window; w == nil || w.UsedPercent != 90 || !w.ResetsAt.Equal(at(4*time.Hour+30*time.Minute)) {
			t.Errorf("listed=%v: home's 5h window %+v, want 90 %%", listed, w)
		}
		if work.Weekly == nil || work.Weekly.UsedPercent != 20 || home.Weekly == nil || home.Weekly.UsedPercent != 50 {
			t.Errorf("listed=%v: weekly windows work %+v home %+v, want 20 %% and 50 %%", listed, work.Weekly, home.Weekly)
		}
		// Work burns 0.2 %/min of a 5-hour window: 36 m/h; home 1 %/min.
		near(t, "work m/h", work.Burn.QuotaMinutesPerHour, 36, 4)
		near(t, "home m/h", home.Burn.QuotaMinutesPerHour, 180, 15)
		if work.State != OnTrack || home.State != Low {
			t.Errorf("listed=%v: states work %s home %s, want on_track and low", listed, work.State, home.State)
		}
		for _, x := range s.Sessions {
			want := map[string]string{"work-session": acctWork, "home-session": acctHome}[x.ID]
			if x.Account != want {
				t.Errorf("listed=%v: session %s under login %q, want %q", listed, x.ID, x.Account, want)
			}
			// Each session takes its own login's burn, not a share of both.
			p := claudeOf(t, s, want)
			near(t, x.ID+" m/h", x.QuotaMinutesPerHour, p.Burn.QuotaMinutesPerHour-p.ElsewhereQuotaMinutesPerHour, 1)
		}
		wantLabel := map[bool]string{false: "claude (" + acctWork + ")", true: "claude (work)"}[listed]
		if got := work.Name(); got != wantLabel {
			t.Errorf("name %q, want %q", got, wantLabel)
		}
		// The gate takes the worst of every login's windows.
		if v, why := Gate(s); v != RunsOut || !strings.Contains(why, "5h low") {
			t.Errorf("gate %v (%s), want RunsOut for home's low 5h window", v, why)
		}
	}
}

// A sample that names no login belongs to the login when there is one, and
// to neither when there are two; a sample of a login no config folder has
// any more is left out.
func TestSamplesWithoutALogin(t *testing.T) {
	reset := at(2 * time.Hour)
	now := at(10 * time.Minute)
	named := withAcct(smp(Claude, 300, 32, reset, at(9*time.Minute), SourceStatusline), acctWork)
	anon := smp(Claude, 300, 33, reset, at(9*time.Minute+30*time.Second), SourceStatusline)
	old := withAcct(smp(Claude, 300, 20, at(3*time.Hour), at(9*time.Minute+40*time.Second), SourceOAuth), acctHome)

	one := Compute(Input{Now: now, Samples: []Sample{named, anon}}, DefaultConfig())
	if p := mustProvider(t, one, Claude); p.Window.UsedPercent != 33 || p.Account != "" || p.AccountLabel != "" {
		t.Errorf("one login: %+v, want the unnamed 33 %% in its window, no label", p)
	}
	listed := []Account{{Claude, acctWork, "work"}}
	gone := Compute(Input{Now: now, Samples: []Sample{named, anon, old}, Accounts: listed}, DefaultConfig())
	if len(gone.Providers) != 1 || gone.Providers[0].Window.UsedPercent != 33 {
		t.Errorf("a logged-out login's sample mixed in: %+v", gone.Providers)
	}

	two := []Account{{Claude, acctWork, "work"}, {Claude, acctHome, "home"}}
	s := Compute(Input{Now: now, Samples: []Sample{named, anon, old}, Accounts: two}, DefaultConfig())
	if w := claudeOf(t, s, acctWork).Window; w.UsedPercent != 32 {
		t.Errorf("two logins: work shows %v %%, want its own 32 (the unnamed 33 belongs to neither)", w.UsedPercent)
	}
	if w := claudeOf(t, s, acctHome).Window; w.UsedPercent != 20 {
		t.Errorf("two logins: home shows %v %%, want 20", w.UsedPercent)
	}
	for _, p := range s.Providers {
		if p.Account == "" {
			t.Errorf("an unnamed sample made a login of its own: %+v", p)
		}
	}

	// A session no login claims is listed on its own, without windows: the
	// gate does not count it.
	in := Input{Now: now, Samples: []Sample{named, old}, Accounts: two,
		Events: steady(Claude, "stray", "", at(5*time.Minute), now, 5*time.Second, 300)}
	s = Compute(in, DefaultConfig())
	u := claudeOf(t, s, "")
	if u.AccountLabel != UnknownLogin || u.Window != nil || len(s.SessionsOfStatus(u)) != 1 {
		t.Errorf("stray session: %+v, sessions %+v", u, s.SessionsOfStatus(u))
	}
	if v, _ := Gate(s); v != Lasts {
		t.Errorf("gate %v: a login without windows beside two with figures must not block", v)
	}
}

// With one login, naming it changes nothing: the snapshot is the one the
// same samples and events give without any account.
func TestOneLoginChangesNothing(t *testing.T) {
	in := twoLogins()
	var plain, named Input
	plain.Now, named.Now = in.Now, in.Now
	for _, s := range in.Samples {
		if s.Account == acctWork {
			named.Samples = append(named.Samples, s)
			s.Account = ""
			plain.Samples = append(plain.Samples, s)
		}
	}
	for _, e := range in.Events {
		named.Events = append(named.Events, e)
		e.Account = ""
		plain.Events = append(plain.Events, e)
	}
	named.Accounts = []Account{{Claude, acctWork, "work"}}
	a, _ := json.Marshal(Compute(plain, DefaultConfig()))
	b, _ := json.Marshal(Compute(named, DefaultConfig()))
	if string(a) != string(b) {
		t.Errorf("one named login changed the snapshot:\n%s\n%s", a, b)
	}
	if strings.Contains(string(b), "account") {
		t.Errorf("one login's snapshot names it: %s", b)
	}
}

// Each login is notified of its own windows, remembered under its own key.
func TestNoticesPerLogin(t *testing.T) {
	in := twoLogins()
	in.Accounts = []Account{{Claude, acctWork, "work"}, {Claude, acctHome, "home"}}
	s := Compute(in, DefaultConfig())
	// Work goes low as well, with the same reset as home's.
	for i := range s.Providers {
		p := &s.Providers[i]
		p.Window.UsedPercent, p.Window.State = 91, Low
		p.Window.ResetsAt = timePtr(at(2 * time.Hour))
	}
	ns, mem := Decide(s, NoticeMemory{}, DefaultConfig())
	var got []string
	for _, n := range ns {
		if n.Window == FiveHour {
			got = append(got, n.Name()+" "+n.Key)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0]+got[1], "claude (work) claude@"+acctWork+"/5h/") ||
		!strings.Contains(got[0]+got[1], "claude (home) claude@"+acctHome+"/5h/") {
		t.Errorf("notices %q, want one per login", got)
	}
	if again, _ := Decide(s, mem, DefaultConfig()); len(again) != 0 {
		t.Errorf("notified again: %+v", again)
	}
}

// Each login's status is what the model says of that login alone, at every
// instant of the story: two logins are two independent accounts.
func TestEachLoginIsComputedAlone(t *testing.T) {
	full := twoLogins()
	full.Accounts = []Account{{Claude, acctWork, "work"}, {Claude, acctHome, "home"}}
	for _, dt := range []time.Duration{-5 * time.Minute, -time.Minute, 0, 3 * time.Minute, 2 * time.Hour, 3 * time.Hour} {
		in := full
		in.Now = full.Now.Add(dt)
		both := Compute(in, DefaultConfig())
		for _, id := range []string{acctWork, acctHome} {
			alone := Input{Now: in.Now, Accounts: []Account{{Claude, id, ""}}}
			for _, s := range in.Samples {
				if s.Account == id {
					alone.Samples = append(alone.Samples, s)
				}
			}
			for _, e := range in.Events {
				if e.Account == id {
					alone.Events = append(alone.Events, e)
				}
			}
			one := Compute(alone, DefaultConfig())
			var got Snapshot
			got.At, got.Warnings = both.At, one.Warnings // the future-dated count is of the whole input
			for _, p := range both.Providers {
				if p.Account == id {
					p.Account, p.AccountLabel = "", ""
					got.Providers = append(got.Providers, p)
				}
			}
			for _, x := range both.Sessions {
				if x.Account == id {
					x.Account = ""
					got.Sessions = append(got.Sessions, x)
				}
			}
			if got.Sessions == nil {
				got.Sessions = []SessionStatus{}
			}
			a, _ := json.Marshal(one)
			b, _ := json.Marshal(got)
			if string(a) != string(b) {
				t.Errorf("at %v, login %s:\nalone %s\nboth  %s", dt, id, a, b)
			}
		}
	}
}
