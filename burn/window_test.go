package burn

import (
	"slices"
	"testing"
	"time"
)

func TestAccountBurn(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour) // opened at t0
	mh := func(pps float64) float64 { return quotaMinutesPerHour(pps, 300) }
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	// ticks is a whole-percent source polled every minute for 15 minutes.
	ticks := func(level func(i int) float64) []Sample {
		var ss []Sample
		for i := 0; i <= 15; i++ {
			ss = append(ss, smp(Claude, 300, level(i), reset, now.Add(time.Duration(i-15)*time.Minute), SourceOAuth))
		}
		return ss
	}
	// One table, one check: each case is a window's samples and the burn they give.
	tests := []struct {
		name    string
		samples []Sample
		method  Method
		mh      float64 // quota minutes per hour of the active window
		tol     float64
		state   State
	}{
		// Reference case: average burn, not thousands (60 % over 298 min).
		{"60 % two minutes before the reset without a fresh velocity",
			[]Sample{smp(Claude, 300, 60, now.Add(2*time.Minute), ago(10*time.Minute), SourceOAuth)},
			MethodAverage, 60.0 / 298 * 60 * 3, 0.01, OnTrack},
		// Reference case: one whole-percent tick is no rate.
		{"a whole-percent source moving 1 % in 5 s",
			[]Sample{smp(Claude, 300, 40, reset, ago(5*time.Second), SourceOAuth), smp(Claude, 300, 41, reset, now, SourceOAuth)},
			MethodAverage, mh(41.0 / (3 * 3600)), 0.01, OnTrack},
		{"a float source measures over 60 s",
			[]Sample{smp(Codex, 300, 40, reset, ago(60*time.Second), SourceCodexLog), smp(Codex, 300, 40.5, reset, now, SourceCodexLog)},
			MethodMeasured, mh(0.5 / 60), 0.01, RunoutBeforeReset},
		{"a float source does not measure over less than 60 s",
			[]Sample{smp(Codex, 300, 40, reset, ago(59*time.Second), SourceCodexLog), smp(Codex, 300, 40.5, reset, now, SourceCodexLog)},
			MethodAverage, mh(40.5 / (3 * 3600)), 0.01, OnTrack},
		// 1 % every 3 minutes (60 m/h).
		{"whole-percent ticks are read at their steps",
			ticks(func(i int) float64 { return 50 + float64(i/3) }),
			MethodMeasured, 60, 0.5, OnTrack},
		// 1 % every minute, then nothing for 9 minutes: at most (5 + 1)
		// steps since the first step was seen.
		{"no tick for a long time bounds the rate",
			ticks(func(i int) float64 { return 50 + float64(min(i, 6)) }),
			MethodMeasured, mh(6.0 / (14 * 60)), 0.5, RunoutBeforeReset},
		{"a whole-percent weekly tick is never thousands of m/h",
			[]Sample{smp(Codex, 10080, 20, now.Add(72*time.Hour), ago(61*time.Second), SourceCodexRPC), smp(Codex, 10080, 21, now.Add(72*time.Hour), now, SourceCodexRPC)},
			MethodAverage, quotaMinutesPerHour(21.0/(96*3600), 10080), 0.01, OnTrack},
		{"a stale velocity falls back to the average",
			[]Sample{smp(Codex, 300, 40, reset, ago(10*time.Minute), SourceCodexLog), smp(Codex, 300, 45, reset, ago(4*time.Minute), SourceCodexLog)},
			MethodAverage, mh(45.0 / (3 * 3600)), 0.01, OnTrack},
		{"the 10-minute floor of the average",
			[]Sample{smp(Claude, 300, 5, now.Add(5*time.Hour-2*time.Minute), ago(5*time.Minute), SourceOAuth)},
			MethodAverage, mh(5.0 / 600), 0.01, RunoutBeforeReset},
		{"a drop starts a new series",
			[]Sample{smp(Codex, 300, 90, reset, ago(10*time.Minute), SourceCodexLog), smp(Codex, 300, 10, reset, ago(2*time.Minute), SourceCodexLog), smp(Codex, 300, 11, reset, now, SourceCodexLog)},
			MethodMeasured, mh(1.0 / 120), 0.01, OnTrack},
		{"the finest fresh source wins",
			[]Sample{
				smp(Claude, 300, 40, reset, ago(10*time.Minute), SourceOAuth),
				smp(Claude, 300, 45, reset, now, SourceOAuth),
				smp(Claude, 300, 41.0, reset, ago(5*time.Minute), SourceStatusline),
				smp(Claude, 300, 41.1, reset, ago(4*time.Minute), SourceStatusline),
				smp(Claude, 300, 42.1, reset, ago(time.Minute), SourceStatusline),
				smp(Claude, 300, 42.2, reset, ago(30*time.Second), SourceStatusline),
			},
			MethodMeasured, mh(1.1 / 225), 0.01, OnTrack},
		{"a window whose reset has passed has no data",
			[]Sample{smp(Claude, 300, 80, ago(time.Minute), ago(10*time.Minute), SourceStatusline)},
			MethodNone, 0, 0, NoData},
		{"a sample older than a newer instance's is ignored",
			[]Sample{smp(Claude, 300, 95, ago(time.Hour), ago(61*time.Minute), SourceStatusline), smp(Claude, 300, 3, reset, ago(time.Minute), SourceOAuth)},
			MethodAverage, mh(3.0 / (3 * 3600)), 0.01, OnTrack},
		{"resets jittering by 2 minutes are one instance",
			[]Sample{
				smp(Codex, 300, 40, reset.Add(90*time.Second), ago(2*time.Minute), SourceCodexLog),
				smp(Codex, 300, 41, reset.Add(-10*time.Second), ago(time.Minute), SourceCodexLog),
				smp(Codex, 300, 42, reset.Add(-30*time.Second), now, SourceCodexLog),
			},
			MethodMeasured, mh(2.0 / 120), 0.01, RunoutBeforeReset},
		{"samples without a reset time still measure",
			[]Sample{smp(Codex, 300, 40, time.Time{}, ago(2*time.Minute), SourceCodexLog), smp(Codex, 300, 41, time.Time{}, now, SourceCodexLog)},
			MethodMeasured, mh(1.0 / 120), 0.01, RunoutBeforeReset},
		{"samples without a reset time join the instance they were observed in",
			[]Sample{smp(Codex, 300, 40, reset, ago(2*time.Minute), SourceCodexLog), smp(Codex, 300, 41, time.Time{}, now, SourceCodexLog)},
			MethodMeasured, mh(1.0 / 120), 0.01, RunoutBeforeReset},
		{"exhausted",
			[]Sample{smp(Claude, 300, 100, reset, ago(time.Hour), SourceLimitHit)},
			MethodAverage, mh(100.0 / (3 * 3600)), 0.01, Exhausted},
		{"low",
			[]Sample{smp(Claude, 300, 90, now.Add(5*time.Minute), now, SourceStatusline)},
			MethodAverage, mh(90.0 / (295 * 60)), 0.01, Low},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Compute(Input{Now: now, Samples: tt.samples}, DefaultConfig())
			if len(s.Providers) != 1 {
				t.Fatalf("providers = %+v", s.Providers)
			}
			p := s.Providers[0]
			if p.Burn.Method != tt.method {
				t.Errorf("method = %s, want %s", p.Burn.Method, tt.method)
			}
			near(t, "m/h", p.Burn.QuotaMinutesPerHour, tt.mh, tt.tol)
			if p.State != tt.state {
				t.Errorf("state = %s, want %s", p.State, tt.state)
			}
			if (p.State == RunoutBeforeReset) != (p.RunoutAt != nil) && p.State != Low {
				t.Errorf("state %s with runout_at %v", p.State, p.RunoutAt)
			}
		})
	}
}

func TestResetWindowSaysNoOldNumber(t *testing.T) {
	now := at(6 * time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Claude, 300, 97, now.Add(-time.Minute), now.Add(-2*time.Minute), SourceStatusline),
		smp(Claude, 10080, 50, now.Add(48*time.Hour), now.Add(-2*time.Minute), SourceStatusline),
	}}, DefaultConfig())
	p := mustProvider(t, s, Claude)
	w := p.Window
	if w == nil || !w.Reset || w.UsedPercent != 0 || w.Fresh || p.State != NoData || w.Class != FiveHour {
		t.Fatalf("window after its reset = %+v, state %s", w, p.State)
	}
	if p.Weekly == nil || p.Weekly.UsedPercent != 50 || p.Weekly.State != OnTrack {
		t.Fatalf("weekly = %+v", p.Weekly)
	}
}

func TestWeeklyOnlyProvider(t *testing.T) {
	now := at(time.Hour)
	// A plan without a 5-hour window puts the weekly one in "primary"; the
	// sample says so by its length.
	s := Compute(Input{Now: now, Samples: []Sample{
		{ObservedAt: now, Provider: Codex, Window: FiveHour, WindowMinutes: 10080, UsedPercent: 30, ResetsAt: now.Add(72 * time.Hour), Source: SourceCodexLog},
	}}, DefaultConfig())
	p := mustProvider(t, s, Codex)
	if p.Window == nil || p.Window.Class != Weekly || p.Window.Minutes != 10080 || p.Weekly == nil {
		t.Fatalf("window = %+v weekly = %+v", p.Window, p.Weekly)
	}
	// Average: 30 % over the 4 days since it opened.
	near(t, "m/h", p.Burn.QuotaMinutesPerHour, quotaMinutesPerHour(30.0/(96*3600), 10080), 0.01)
}

func TestWindowSelection(t *testing.T) {
	now := at(2 * time.Hour)
	reset := now.Add(3 * time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Claude, 300, 41, reset, now.Add(-20*time.Second), SourceOAuth),
		smp(Claude, 300, 40.7, reset, now.Add(-20*time.Second), SourceStatusline),
		smp(Claude, 300, 39, reset, now.Add(-5*time.Minute), SourceOAuth),
	}}, DefaultConfig())
	w := mustProvider(t, s, Claude).Window
	if w.Source != SourceStatusline || w.UsedPercent != 40.7 || !w.Fresh || !w.ResetsAt.Equal(reset) {
		t.Fatalf("shown = %+v, want the statusline sample (newest, finer on a tie)", w)
	}
	s = Compute(Input{Now: now.Add(4 * time.Minute), Samples: []Sample{
		smp(Claude, 300, 41, reset, now, SourceOAuth),
	}}, DefaultConfig())
	if w := mustProvider(t, s, Claude).Window; w.Fresh {
		t.Fatalf("a 4-minute-old sample is fresh: %+v", w)
	}
}

func TestUnknownResetIsEstimated(t *testing.T) {
	now := at(time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Codex, 300, 20, time.Time{}, at(0), SourceCodexLog),
		smp(Codex, 300, 30, time.Time{}, now, SourceCodexLog),
	}}, DefaultConfig())
	w := mustProvider(t, s, Codex).Window
	if w.ResetsAt == nil || !w.ResetsAtEstimated || !w.ResetsAt.Equal(at(5*time.Hour)) {
		t.Fatalf("window = %+v, want resets_at estimated at the latest possible", w)
	}
	// Past the latest possible reset, the window is over.
	s = Compute(Input{Now: at(5*time.Hour + time.Second), Samples: []Sample{
		smp(Codex, 300, 20, time.Time{}, at(0), SourceCodexLog),
	}}, DefaultConfig())
	if w := mustProvider(t, s, Codex).Window; !w.Reset {
		t.Fatalf("window = %+v, want reset", w)
	}
}

// A reading one step below the newest of the same source is old too: one
// source rounds alike, so it is no rounding apart. (Kept, it started a new
// series: the burn read 48 m/h for a minute where 90 was true.)
func TestOldReadingOneStepBelow(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	ss := statuslineAccount(42.2, mhPPS(90, 300), reset, now.Add(-8*time.Second))
	want := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude)
	ss = append(ss, smp(Claude, 300, 42.1, reset, now.Add(-4*time.Second), SourceStatusline))
	p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude)
	if p.Window.UsedPercent != want.Window.UsedPercent || p.Burn != want.Burn {
		t.Fatalf("after 42.1 %%: used %.1f%% %+v, want %.1f%% %+v", p.Window.UsedPercent, p.Burn, want.Window.UsedPercent, want.Burn)
	}
}

// A reading below one the instance already showed is an old value
// reported late (Claude Code re-sends an idle session's last figures), from
// whichever source: it moves nothing back.
func TestOldReadingOfAnySourceMovesNothingBack(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	pps := mhPPS(90, 300)
	for _, tc := range []struct {
		p        Provider
		series   Source // the source that climbed
		late     Source // the one reporting an old value now
		top, old float64
	}{
		{Claude, SourceStatusline, SourceStatusline, 42.2, 39.7},
		{Claude, SourceStatusline, SourceOAuthCache, 42.2, 39},
		{Claude, SourceOAuth, SourceOAuthCache, 42, 39},
		{Codex, SourceCodexLog, SourceCodexRPC, 45.3, 40},
		{Codex, SourceCodexLog, SourceCodexLog, 45.3, 40.1},
		{Codex, SourceCodexRPC, SourceCodexLog, 45, 40.1},
	} {
		ss := measuredAccount(tc.p, tc.top, pps, reset, now.Add(-30*time.Second))
		for i := range ss {
			ss[i].Source = tc.series
			ss[i].UsedPercent = quantize(ss[i].UsedPercent, tc.series)
		}
		ss = append(ss, smp(tc.p, 300, tc.old, reset, now, tc.late))
		p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), tc.p)
		if p.Window.UsedPercent != quantize(tc.top, tc.series) || p.Burn.Method != MethodMeasured {
			t.Errorf("%s after %s: used %.1f%% (%s), want %.1f%% measured", tc.late, tc.series, p.Window.UsedPercent, p.Burn.Method, quantize(tc.top, tc.series))
			continue
		}
		near(t, string(tc.late)+" m/h", p.Burn.QuotaMinutesPerHour, 90, 9)
	}
}

// A real early reset that keeps resets_at is no old value: the usage
// endpoint polled just now says so at once; without it, the drop holds once
// a later reading has risen from it while still below the old value.
func TestEarlyResetWithTheSameResetsAt(t *testing.T) {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	high := statuslineAccount(60, mhPPS(90, 300), reset, now.Add(-5*time.Minute))

	// The endpoint: 0 % one minute ago.
	ss := append(slices.Clone(high), smp(Claude, 300, 0, reset, now.Add(-time.Minute), SourceOAuth))
	if p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude); p.Window.UsedPercent != 0 {
		t.Errorf("oauth 0 %% after 60 %%: used %.1f%%, want 0", p.Window.UsedPercent)
	}

	// The statusline only: one low reading is an old value as likely as
	// a reset; the next one, risen from it, says the window restarted.
	ss = append(slices.Clone(high), smp(Claude, 300, 0.3, reset, now.Add(-2*time.Minute), SourceStatusline))
	if p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude); p.Window.UsedPercent != 60 {
		t.Errorf("one low statusline reading: used %.1f%%, want 60 (unconfirmed)", p.Window.UsedPercent)
	}
	ss = append(ss, smp(Claude, 300, 0.6, reset, now.Add(-time.Minute), SourceStatusline), smp(Claude, 300, 0.9, reset, now, SourceStatusline))
	if p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude); p.Window.UsedPercent != 0.9 {
		t.Errorf("statusline 0.3, 0.6, 0.9 after 60 %%: used %.1f%%, want 0.9", p.Window.UsedPercent)
	}

	// Back up after the low reading: it was an old value.
	ss = append(slices.Clone(high), smp(Claude, 300, 0.3, reset, now.Add(-2*time.Minute), SourceOAuthCache),
		smp(Claude, 300, 60.2, reset, now.Add(-time.Minute), SourceStatusline), smp(Claude, 300, 0.6, reset, now, SourceOAuthCache))
	if p := mustProvider(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude); p.Window.UsedPercent != 60.2 {
		t.Errorf("old cache readings around a newer statusline: used %.1f%%, want 60.2", p.Window.UsedPercent)
	}
}

// A weekly float series that sat on one value while the sessions wrote is
// a source that rounds, not a measured 0.
func TestWeeklyBurnsWhileSessionsWrite(t *testing.T) {
	now := at(3 * time.Hour)
	reset5, resetW := now.Add(3*time.Hour), now.Add(72*time.Hour)
	var samples []Sample
	for m := 0; m <= 60; m++ {
		t := now.Add(time.Duration(m-60) * time.Minute)
		samples = append(samples,
			smp(Codex, 300, 9+0.067*float64(m), reset5, t, SourceCodexLog),
			smp(Codex, 10080, 31, resetW, t, SourceCodexLog))
	}
	events := steady(Codex, "s", "", now.Add(-60*time.Minute), now.Add(-5*time.Second), 10*time.Second, 200)
	p := mustProvider(t, Compute(Input{Now: now, Samples: samples, Events: events}, DefaultConfig()), Codex)
	if p.Window.Burn.QuotaMinutesPerHour < 5 {
		t.Fatalf("5h burn = %+v, want about 12 m/h", p.Window.Burn)
	}
	wk := p.Weekly.Burn
	if !(wk.QuotaMinutesPerHour > 0) || wk.Method == MethodMeasured || wk.Marker() != "~" {
		t.Fatalf("weekly burn = %+v while the sessions write: want an estimate above 0, not a measured 0", wk)
	}
	// Nothing written: a flat series is a measured 0.
	p = mustProvider(t, Compute(Input{Now: now, Samples: samples}, DefaultConfig()), Codex)
	if wk := p.Weekly.Burn; wk.QuotaMinutesPerHour != 0 || wk.Method != MethodMeasured {
		t.Fatalf("weekly burn = %+v with nothing written: want a measured 0", wk)
	}
}
