package burn

import (
	"math"
	"slices"
	"testing"
	"time"
)

// measuredAccount is a float sample series burning pps for the last 10 min.
func measuredAccount(p Provider, used, pps float64, reset, now time.Time) []Sample {
	var ss []Sample
	for i := 10; i >= 0; i-- {
		ss = append(ss, smp(p, 300, used-pps*float64(i*60), reset, now.Add(-time.Duration(i)*time.Minute), SourceCodexLog))
	}
	return ss
}

// statuslineAccount is measuredAccount as Claude's statusline reports it, in
// 0.1 % steps.
func statuslineAccount(used, pps float64, reset, now time.Time) []Sample {
	ss := measuredAccount(Claude, used, pps, reset, now)
	for i := range ss {
		ss[i].Source = SourceStatusline
		ss[i].UsedPercent = math.Floor(ss[i].UsedPercent*10+1e-9) / 10
	}
	return ss
}

func TestElsewhere(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	pps := mhPPS(40, 300)
	t.Run("no local session at all", func(t *testing.T) {
		s := Compute(Input{Now: now, Samples: measuredAccount(Claude, 50, pps, reset, now)}, DefaultConfig())
		near(t, "elsewhere", mustProvider(t, s, Claude).ElsewhereQuotaMinutesPerHour, 40, 1e-6)
	})
	t.Run("a local session quiet for the whole measured span", func(t *testing.T) {
		s := Compute(Input{Now: now, Samples: measuredAccount(Claude, 50, pps, reset, now),
			Events: steady(Claude, "a", "", now.Add(-40*time.Minute), now.Add(-20*time.Minute), 10*time.Second, 100)}, DefaultConfig())
		near(t, "elsewhere", mustProvider(t, s, Claude).ElsewhereQuotaMinutesPerHour, 40, 1e-6)
		near(t, "a m/h", sessionByID(s, "a").QuotaMinutesPerHour, 0, 0)
	})
	t.Run("a local session that just paused explains it", func(t *testing.T) {
		s := Compute(Input{Now: now, Samples: measuredAccount(Claude, 50, pps, reset, now),
			Events: steady(Claude, "a", "", now.Add(-10*time.Minute), now.Add(-time.Minute), 10*time.Second, 100)}, DefaultConfig())
		near(t, "elsewhere", mustProvider(t, s, Claude).ElsewhereQuotaMinutesPerHour, 0, 0)
	})
	t.Run("an average is no evidence of burning now", func(t *testing.T) {
		s := Compute(Input{Now: now, Samples: []Sample{smp(Claude, 300, 50, reset, now.Add(-time.Hour), SourceOAuth)}}, DefaultConfig())
		near(t, "elsewhere", mustProvider(t, s, Claude).ElsewhereQuotaMinutesPerHour, 0, 0)
	})
}

// TestAttributionProjectionAndPause: the burn split by token rates, where it
// leads, and what pausing each session buys.
func TestAttributionProjectionAndPause(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	// 50 % left at 120 m/h of a 5-hour window: 75 minutes, 45 before the reset.
	pps := mhPPS(120, 300)
	in := Input{
		Now:     now,
		Samples: measuredAccount(Codex, 50, pps, reset, now),
		Events: append(steady(Codex, "big", "", now.Add(-10*time.Minute), now, 10*time.Second, 300),
			steady(Codex, "small", "", now.Add(-10*time.Minute), now.Add(-5*time.Second), 10*time.Second, 100)...),
	}
	s := Compute(in, DefaultConfig())
	p := mustProvider(t, s, Codex)
	near(t, "provider m/h", p.Burn.QuotaMinutesPerHour, 120, 1e-6)
	near(t, "big m/h", sessionByID(s, "big").QuotaMinutesPerHour, 90, 1e-6)
	near(t, "small m/h", sessionByID(s, "small").QuotaMinutesPerHour, 30, 1e-6)
	near(t, "elsewhere", p.ElsewhereQuotaMinutesPerHour, 0, 0)
	if s.Sessions[0].ID != "big" {
		t.Errorf("rank: %s first", s.Sessions[0].ID)
	}
	if p.State != RunoutBeforeReset || p.RunoutAt == nil {
		t.Fatalf("state %s runout %v", p.State, p.RunoutAt)
	}
	near(t, "minutes to run-out", p.RunoutAt.Sub(now).Minutes(), 75, 0.01)
	near(t, "minutes before reset", p.RunoutMinutesBeforeReset, 45, 0.01)
	near(t, "window's own minutes before reset", p.Window.RunoutMinutesBeforeReset, 45, 0.01)

	big, small := sessionByID(s, "big"), sessionByID(s, "small")
	// Pausing big leaves 30 m/h: lasts.
	if !big.PauseLastsToReset || big.PauseRunoutAt != nil {
		t.Errorf("pausing big: lasts %v, runout %v", big.PauseLastsToReset, big.PauseRunoutAt)
	}
	near(t, "big gain", big.PauseGainMinutes, 45, 0.01)
	// Pausing small leaves 90 m/h: 100 minutes, 25 more.
	if small.PauseLastsToReset || small.PauseRunoutAt == nil {
		t.Fatalf("pausing small: lasts %v, runout %v", small.PauseLastsToReset, small.PauseRunoutAt)
	}
	near(t, "small pause run-out", small.PauseRunoutAt.Sub(now).Minutes(), 100, 0.01)
	near(t, "small gain", small.PauseGainMinutes, 25, 0.01)
}

func TestRanking(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	in := Input{
		Now:     now,
		Samples: measuredAccount(Claude, 50, mhPPS(60, 300), reset, now),
		Events: concat(
			steady(Claude, "slow", "", now.Add(-5*time.Minute), now, 10*time.Second, 100),
			steady(Claude, "fast", "", now.Add(-5*time.Minute), now, 10*time.Second, 500),
			steady(Claude, "idle", "", now.Add(-time.Hour), now.Add(-50*time.Minute), 10*time.Second, 5000),
			steady(Claude, "waiting", "", now.Add(-5*time.Minute), now.Add(-time.Minute), 10*time.Second, 5000),
			steady(Codex, "codex", "", now.Add(-5*time.Minute), now, 10*time.Second, 100),
		),
	}
	s := Compute(in, DefaultConfig())
	var got []string
	for _, x := range s.Sessions {
		got = append(got, x.ID)
	}
	if want := []string{"fast", "slow", "codex", "waiting", "idle"}; !slices.Equal(got, want) {
		t.Fatalf("sessions %v, want %v", got, want)
	}
	if len(s.Providers) != 2 || s.Providers[0].Provider != Claude || s.Providers[1].Provider != Codex {
		t.Fatalf("providers %+v", s.Providers)
	}
	if c := mustProvider(t, s, Codex); c.State != NoData || c.Window != nil {
		t.Errorf("codex without a sample: %+v", c)
	}
}

func TestProviderListing(t *testing.T) {
	now := at(30 * 24 * time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Codex, 10080, 40, now.Add(-10*24*time.Hour), now.Add(-12*24*time.Hour), SourceCodexLog),
		smp(Claude, 300, 40, now.Add(-time.Hour), now.Add(-2*time.Hour), SourceStatusline),
	}}, DefaultConfig())
	if len(s.Providers) != 1 || s.Providers[0].Provider != Claude {
		t.Fatalf("providers = %+v, want only claude (codex's sample is 12 days old)", s.Providers)
	}
	s = Compute(Input{Now: now}, DefaultConfig())
	if s.Providers == nil || s.Sessions == nil || s.Warnings == nil || len(s.Providers) != 0 {
		t.Fatalf("empty snapshot = %+v", s)
	}
}

func concat(ss ...[]Event) []Event {
	var out []Event
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

func TestCalibration(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	// 2,000 tokens/s moved the account 0.5 % a minute (90 m/h) until the
	// samples stopped 10 minutes ago; the caller read usage only from 30
	// minutes back.
	var ss []Sample
	for m := 60; m >= 10; m-- {
		used := 50 - 0.5*float64(m)
		ss = append(ss, smp(Claude, 300, math.Floor(used*10+1e-9)/10, reset, now.Add(-time.Duration(m)*time.Minute), SourceStatusline))
	}
	in := Input{Now: now, Samples: ss, Events: steady(Claude, "a", "", now.Add(-30*time.Minute), now, 10*time.Second, 2000)}
	s := Compute(in, DefaultConfig())
	p := mustProvider(t, s, Claude)
	if p.Burn.Method != MethodCalibrated {
		t.Fatalf("method %s", p.Burn.Method)
	}
	near(t, "m/h", p.Burn.QuotaMinutesPerHour, 90, 2)
	// 45 % at −10 min, then 5 % more: 50 % left at 0.5 % a minute.
	near(t, "minutes to run-out", p.RunoutAt.Sub(now).Minutes(), 100, 2)

	cfg := DefaultConfig()
	cfg.Calibrate = false
	// Without calibration the velocity of 10 minutes ago is held (session
	// a has not ended its turn), and without the hold the average rules.
	if p := mustProvider(t, Compute(in, cfg), Claude); p.Burn.Method != MethodMeasured || p.Window.Fresh {
		t.Fatalf("without calibration: %s, fresh %v", p.Burn.Method, p.Window.Fresh)
	}
	cfg.VelocityHold = -1
	if p := mustProvider(t, Compute(in, cfg), Claude); p.Burn.Method != MethodAverage {
		t.Fatalf("without calibration and hold: %s", p.Burn.Method)
	}
	// No local session burning: nothing to calibrate against, and a
	// session quiet for 5 minutes may be in a tool call: held.
	in.Events = steady(Claude, "a", "", now.Add(-30*time.Minute), now.Add(-5*time.Minute), 10*time.Second, 2000)
	if p := mustProvider(t, Compute(in, DefaultConfig()), Claude); p.Burn.Method != MethodMeasured {
		t.Fatalf("with idle sessions: %s", p.Burn.Method)
	}
	// Once its turn ended, the average.
	in.Activity = []Activity{{Provider: Claude, Session: "a", At: now.Add(-5 * time.Minute), TurnEnded: true}}
	if p := mustProvider(t, Compute(in, DefaultConfig()), Claude); p.Burn.Method != MethodAverage {
		t.Fatalf("with idle sessions whose turn ended: %s", p.Burn.Method)
	}
}

// The week runs dry before its reset while the 5-hour window is on track:
// pausing a session buys time on the week, and says so (found tried as a
// new user would: the rows said nothing while the weekly verdict was red).
func TestPauseIsAboutTheWeekWhenItBinds(t *testing.T) {
	now := at(3 * time.Hour)
	reset5, resetWeek := now.Add(2*time.Hour), now.Add(48*time.Hour)
	five := measuredAccount(Codex, 20, mhPPS(12, 300), reset5, now) // lasts
	// 4 % left of the week, gone in 3 hours at this pace.
	weekPPS := 4.0 / (3 * 3600)
	var week []Sample
	for i := 10; i >= 0; i-- {
		week = append(week, smp(Codex, 10080, 96-weekPPS*float64(i*60), resetWeek, now.Add(-time.Duration(i)*time.Minute), SourceCodexLog))
	}
	in := Input{Now: now, Samples: append(five, week...),
		Events: append(steady(Codex, "big", "", now.Add(-10*time.Minute), now, 10*time.Second, 300),
			steady(Codex, "small", "", now.Add(-10*time.Minute), now, 10*time.Second, 100)...)}
	s := Compute(in, DefaultConfig())
	p := mustProvider(t, s, Codex)
	if p.Window.RunsOut() || !p.Weekly.RunsOut() {
		t.Fatalf("5h runs out %v, week runs out %v: not the case under test", p.Window.RunsOut(), p.Weekly.RunsOut())
	}
	near(t, "week's run-out", p.Weekly.RunoutAt.Sub(now).Minutes(), 180, 1)
	big, small := sessionByID(s, "big"), sessionByID(s, "small")
	for _, ss := range []*SessionStatus{big, small} {
		if ss.PauseWindow != Weekly {
			t.Errorf("%s: pause figures about %q, want the week", ss.ID, ss.PauseWindow)
		}
	}
	// Pausing big leaves a quarter of the burn: 12 hours instead of 3.
	near(t, "big gain", big.PauseGainMinutes, 540, 5)
	// Pausing small leaves three quarters: 4 hours instead of 3.
	near(t, "small gain", small.PauseGainMinutes, 60, 2)
}
