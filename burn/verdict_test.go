package burn

import (
	"strings"
	"testing"
	"time"
)

func TestGateEveryWindow(t *testing.T) {
	tp := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	win := func(class WindowClass, used float64, st State, runout *time.Time) *WindowStatus {
		return &WindowStatus{Class: class, UsedPercent: used, State: st, RunoutAt: runout, ResetsAt: tp(24 * time.Hour)}
	}
	onTrack := win(FiveHour, 20, OnTrack, nil)
	cases := []struct {
		name string
		snap Snapshot
		want Verdict
	}{
		// The case that exited 0: the weekly window low and running out,
		// the 5-hour one on track.
		{"weekly low and running out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 91, Low, tp(17*time.Minute))}}}, RunsOut},
		{"weekly low, lasts", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 91, Low, nil)}}}, RunsOut},
		{"weekly runs out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 80, RunoutBeforeReset, tp(time.Hour))}}}, RunsOut},
		{"weekly exhausted", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 100, Exhausted, nil)}}}, Blocked},
		{"codex exhausted beside claude on track", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, Window: onTrack, State: OnTrack},
			{Provider: Codex, Window: win(FiveHour, 100, Exhausted, nil), State: Exhausted}}}, Blocked},
		{"all on track", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 30, OnTrack, nil)}}}, Lasts},
		{"no data at all", Snapshot{}, CannotTell},
		{"sessions but no figure at all", Snapshot{Providers: []ProviderStatus{{Provider: Claude, State: NoData}}}, CannotTell},
		// An API-key login has no windows: the other provider answers.
		{"a provider without a figure beside one with it", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, State: NoData},
			{Provider: Codex, Window: onTrack, State: OnTrack}}}, Lasts},
		{"a provider whose source failed", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, State: NoData},
			{Provider: Codex, Window: onTrack, State: OnTrack}}, Unread: []string{"claude: claude-oauth error"}}, CannotTell},
		{"unread state", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack}},
			Unread: []string{"sample log: permission denied"}}, CannotTell},
		// What is known to run out is said even when something is unknown.
		{"unread state beside a run-out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 95, Low, nil)}}, Unread: []string{"x"}}, RunsOut},
		{"reset window is refilled", Snapshot{Providers: []ProviderStatus{{Provider: Claude, State: NoData,
			Window: &WindowStatus{Class: FiveHour, Reset: true, State: NoData}}}}, Lasts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := Gate(c.snap)
			if got != c.want {
				t.Errorf("Gate = %d (%s), want %d", got, why, c.want)
			}
			if got != Lasts && why == "" {
				t.Error("no reason given")
			}
		})
	}
}

// The caller prints the reason after "--check cannot tell: ": the reason
// says what is missing and where to look, without saying "cannot tell" again.
func TestGateNoFigureReason(t *testing.T) {
	v, why := Gate(Snapshot{})
	if v != CannotTell {
		t.Fatalf("Gate = %d, want CannotTell", v)
	}
	if strings.Contains(why, "cannot tell") || !strings.Contains(why, "runway doctor") {
		t.Errorf("reason %q: want what is missing and the next step, without repeating \"cannot tell\"", why)
	}
}

// The icon, the line and the gate read one function: a window the gate
// counts is pressing, and the provider's worst window is the weekly one
// when that one decides.
func TestWorstWindowIsTheGatesWindow(t *testing.T) {
	reset := t0.Add(24 * time.Hour)
	runout := t0.Add(17 * time.Minute)
	wk := &WindowStatus{Class: Weekly, UsedPercent: 91, State: Low, RunoutAt: &runout, ResetsAt: &reset}
	p := ProviderStatus{Provider: Claude, Window: &WindowStatus{Class: FiveHour, UsedPercent: 20, State: OnTrack}, Weekly: wk}
	if p.WorstWindow() != wk || !wk.Pressing() || windowVerdict(p.WorstWindow()) != RunsOut || !wk.RunsOut() {
		t.Errorf("worst %+v pressing %v", p.WorstWindow(), wk.Pressing())
	}
	if p.Window.Pressing() {
		t.Error("an on-track window is pressing")
	}
}

// A source gone quiet while sessions burn: the gate cannot tell. With
// nothing burning, or a token-backed estimate, it still tells.
func TestGateOldFigureWhileSessionsBurn(t *testing.T) {
	reset := t0.Add(3 * time.Hour)
	old := func(m Method) *WindowStatus {
		return &WindowStatus{Class: FiveHour, UsedPercent: 40, State: OnTrack, ResetsAt: &reset,
			ObservedAt: t0.Add(-25 * time.Minute), Burn: Burn{QuotaMinutesPerHour: 20, Method: m}}
	}
	snap := func(w *WindowStatus, kind RateKind) Snapshot {
		return Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, Window: w, State: w.State}},
			Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: kind, QuotaMinutesPerHour: 20}}}
	}
	if v, why := Gate(snap(old(MethodAverage), Measured)); v != CannotTell || !strings.Contains(why, "25 min old while its sessions burn") {
		t.Errorf("old average, a session burning: %v (%s), want cannot tell", v, why)
	}
	if v, _ := Gate(snap(old(MethodMeasured), Provisional)); v != CannotTell {
		t.Errorf("old measured figure, a session on its first turn: %v, want cannot tell", v)
	}
	for _, c := range []struct {
		name string
		s    Snapshot
	}{
		{"nothing burns", snap(old(MethodAverage), Idle)},
		{"a session waits", snap(old(MethodAverage), Waiting)},
		{"the tokens carry it", snap(old(MethodCalibrated), Measured)},
	} {
		if v, why := Gate(c.s); v != Lasts {
			t.Errorf("%s: %v (%s), want lasts", c.name, v, why)
		}
	}
	fresh := old(MethodAverage)
	fresh.Fresh, fresh.ObservedAt = true, t0.Add(-30*time.Second)
	if v, _ := Gate(snap(fresh, Measured)); v != Lasts {
		t.Errorf("a fresh figure: %v, want lasts", v)
	}
}

// A window that lasts only at a figure its ticks prove behind (the percent
// rises faster) cannot be said to last; one that runs out at it still
// runs out.
func TestGateBurnBehind(t *testing.T) {
	reset, runout := t0.Add(3*time.Hour), t0.Add(time.Hour)
	w := &WindowStatus{Class: FiveHour, UsedPercent: 40, State: OnTrack, ResetsAt: &reset, Fresh: true, ObservedAt: t0,
		Burn: Burn{QuotaMinutesPerHour: 45, Method: MethodMeasured, Settling: true, Behind: true}}
	s := Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, Window: w, State: w.State, Burn: w.Burn}}}
	if v, why := Gate(s); v != CannotTell || !strings.Contains(why, "rises faster") {
		t.Errorf("lasting at a figure behind: %v (%s), want cannot tell", v, why)
	}
	w.State, w.RunoutAt = RunoutBeforeReset, &runout
	if v, _ := Gate(s); v != RunsOut {
		t.Errorf("running out at a figure behind: %v, want runs out", v)
	}
	w.State, w.RunoutAt, w.Burn.Behind = OnTrack, nil, false
	if v, _ := Gate(s); v != Lasts {
		t.Errorf("settling, not behind: %v, want lasts", v)
	}
}

// The 5-hour window reset after its newest sample and sessions burn now:
// the gate cannot tell. Nothing burning, it lasts; an API-key login is not counted.
func TestGateNoFigureWhileSessionsBurn(t *testing.T) {
	reset, weekReset := t0.Add(-72*time.Minute), t0.Add(3*24*time.Hour)
	snap := func(kind RateKind) Snapshot {
		return Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, State: NoData,
			Window: &WindowStatus{Class: FiveHour, Reset: true, State: NoData, ResetsAt: &reset, ObservedAt: t0.Add(-6 * time.Hour)},
			Weekly: &WindowStatus{Class: Weekly, UsedPercent: 30, State: OnTrack, ResetsAt: &weekReset, ObservedAt: t0.Add(-6 * time.Hour),
				Burn: Burn{QuotaMinutesPerHour: 3, Method: MethodAverage}}}},
			Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: kind, TokensPerS: 375}}}
	}
	// A waiting session (a pause between turns, a long tool run) keeps its
	// pace: beside a window with no figure it is not known to last.
	for _, kind := range []RateKind{Measured, Provisional, Waiting} {
		s := snap(kind)
		if !s.BurningBlind(s.Providers[0]) {
			t.Errorf("%s: not blind", kind)
		}
		if v, why := Gate(s); v != CannotTell || !strings.Contains(why, "claude 5h: no sample since its reset 72 min ago while its sessions burn") {
			t.Errorf("%s session, no figure since the reset: %v (%s), want cannot tell", kind, v, why)
		}
	}
	for _, kind := range []RateKind{Idle} {
		if v, why := Gate(snap(kind)); v != Lasts {
			t.Errorf("%s session, refilled window: %v (%s), want lasts", kind, v, why)
		}
	}
	// What is known to run out still beats not knowing.
	s := snap(Measured)
	s.Providers[0].Weekly.State = Low
	if v, _ := Gate(s); v != RunsOut {
		t.Errorf("blind beside a low week: %v, want runs out", v)
	}
	apiKey := Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, State: NoData},
		{Provider: Codex, State: OnTrack, Window: &WindowStatus{Class: FiveHour, UsedPercent: 20, State: OnTrack, Fresh: true, ObservedAt: t0}}},
		Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: Measured}}}
	if v, why := Gate(apiKey); v != Lasts {
		t.Errorf("an API-key login burning beside a subscription: %v (%s), want lasts", v, why)
	}
}
