package burn

import (
	"strings"
	"testing"
	"time"
)

// TestGate: the verdict over every window of every provider, and the
// reason: what is missing and where to look, never "cannot tell" again
// (the caller prints it after "--check cannot tell: ").
func TestGate(t *testing.T) {
	tp := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	win := func(class WindowClass, used float64, st State, runout *time.Time) *WindowStatus {
		return &WindowStatus{Class: class, UsedPercent: used, State: st, RunoutAt: runout, ResetsAt: tp(24 * time.Hour)}
	}
	onTrack := win(FiveHour, 20, OnTrack, nil)
	// One Claude window with one session of kind.
	with := func(w *WindowStatus, kind RateKind) Snapshot {
		return Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, Window: w, State: w.State, Burn: w.Burn}},
			Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: kind, QuotaMinutesPerHour: 20}}}
	}
	// A figure 25 minutes old, its burn obtained by m.
	old := func(m Method) *WindowStatus {
		return &WindowStatus{Class: FiveHour, UsedPercent: 40, State: OnTrack, ResetsAt: tp(3 * time.Hour),
			ObservedAt: t0.Add(-25 * time.Minute), Burn: Burn{QuotaMinutesPerHour: 20, Method: m}}
	}
	fresh := old(MethodAverage)
	fresh.Fresh, fresh.ObservedAt = true, t0.Add(-30*time.Second)
	// A fresh figure whose ticks prove it behind (the percent rises faster).
	behind := func(st State, runout *time.Time, isBehind bool) Snapshot {
		return with(&WindowStatus{Class: FiveHour, UsedPercent: 40, State: st, RunoutAt: runout, ResetsAt: tp(3 * time.Hour), Fresh: true, ObservedAt: t0,
			Burn: Burn{QuotaMinutesPerHour: 45, Method: MethodMeasured, Settling: true, Behind: isBehind}}, Measured)
	}
	// The 5-hour window reset 72 minutes ago, after its newest sample.
	blind := func(kind RateKind) Snapshot {
		return Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, State: NoData,
			Window: &WindowStatus{Class: FiveHour, Reset: true, State: NoData, ResetsAt: tp(-72 * time.Minute), ObservedAt: t0.Add(-6 * time.Hour)},
			Weekly: &WindowStatus{Class: Weekly, UsedPercent: 30, State: OnTrack, ResetsAt: tp(3 * 24 * time.Hour), ObservedAt: t0.Add(-6 * time.Hour),
				Burn: Burn{QuotaMinutesPerHour: 3, Method: MethodAverage}}}},
			Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: kind, TokensPerS: 375}}}
	}
	blindLowWeek := blind(Measured)
	blindLowWeek.Providers[0].Weekly.State = Low
	const noSample = "claude 5h: no sample since its reset 72 min ago while its sessions burn"
	cases := []struct {
		name string
		snap Snapshot
		want Verdict
		why  string // in the reason
	}{
		// The case that exited 0: the weekly window low and running out,
		// the 5-hour one on track.
		{"weekly low and running out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 91, Low, tp(17*time.Minute))}}}, RunsOut, ""},
		{"weekly low, lasts", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 91, Low, nil)}}}, RunsOut, ""},
		{"weekly runs out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 80, RunoutBeforeReset, tp(time.Hour))}}}, RunsOut, ""},
		{"weekly exhausted", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 100, Exhausted, nil)}}}, Blocked, ""},
		{"codex exhausted beside claude on track", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, Window: onTrack, State: OnTrack},
			{Provider: Codex, Window: win(FiveHour, 100, Exhausted, nil), State: Exhausted}}}, Blocked, ""},
		{"all on track", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 30, OnTrack, nil)}}}, Lasts, ""},
		{"no data at all", Snapshot{}, CannotTell, "runway doctor"},
		{"sessions but no figure at all", Snapshot{Providers: []ProviderStatus{{Provider: Claude, State: NoData}}}, CannotTell, ""},
		// An API-key login has no windows: the other provider answers.
		{"a provider without a figure beside one with it", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, State: NoData},
			{Provider: Codex, Window: onTrack, State: OnTrack}}}, Lasts, ""},
		{"a provider whose source failed", Snapshot{Providers: []ProviderStatus{
			{Provider: Claude, State: NoData},
			{Provider: Codex, Window: onTrack, State: OnTrack}}, Unread: []string{"claude: claude-oauth error"}}, CannotTell, ""},
		{"unread state", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack}},
			Unread: []string{"sample log: permission denied"}}, CannotTell, ""},
		// What is known to run out is said even when something is unknown.
		{"unread state beside a run-out", Snapshot{Providers: []ProviderStatus{{Provider: Claude, Window: onTrack, State: OnTrack,
			Weekly: win(Weekly, 95, Low, nil)}}, Unread: []string{"x"}}, RunsOut, ""},
		{"reset window is refilled", Snapshot{Providers: []ProviderStatus{{Provider: Claude, State: NoData,
			Window: &WindowStatus{Class: FiveHour, Reset: true, State: NoData}}}}, Lasts, ""},
		// A source gone quiet while sessions burn: the gate cannot tell.
		// With nothing burning, or a token-backed estimate, it still tells.
		{"old average, a session burning", with(old(MethodAverage), Measured), CannotTell, "25 min old while its sessions burn"},
		{"old measured figure, a session on its first turn", with(old(MethodMeasured), Provisional), CannotTell, ""},
		{"old figure, nothing burns", with(old(MethodAverage), Idle), Lasts, ""},
		{"old figure, a session waits", with(old(MethodAverage), Waiting), Lasts, ""},
		{"old figure, the tokens carry it", with(old(MethodCalibrated), Measured), Lasts, ""},
		{"a fresh figure", with(fresh, Measured), Lasts, ""},
		// Lasting only at a figure its ticks prove behind is not lasting;
		// running out at it still runs out.
		{"lasting at a figure behind", behind(OnTrack, nil, true), CannotTell, "rises faster"},
		{"running out at a figure behind", behind(RunoutBeforeReset, tp(time.Hour), true), RunsOut, ""},
		{"settling, not behind", behind(OnTrack, nil, false), Lasts, ""},
		// No figure since the reset while sessions burn; a waiting session
		// (a pause between turns, a long tool run) keeps its pace.
		{"a measured session, no figure since the reset", blind(Measured), CannotTell, noSample},
		{"a provisional session, no figure since the reset", blind(Provisional), CannotTell, noSample},
		{"a waiting session, no figure since the reset", blind(Waiting), CannotTell, noSample},
		{"an idle session, refilled window", blind(Idle), Lasts, ""},
		{"blind beside a low week", blindLowWeek, RunsOut, ""},
		{"an API-key login burning beside a subscription", Snapshot{At: t0, Providers: []ProviderStatus{{Provider: Claude, State: NoData},
			{Provider: Codex, State: OnTrack, Window: &WindowStatus{Class: FiveHour, UsedPercent: 20, State: OnTrack, Fresh: true, ObservedAt: t0}}},
			Sessions: []SessionStatus{{Provider: Claude, ID: "a", RateKind: Measured}}}, Lasts, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := Gate(c.snap)
			if got != c.want {
				t.Errorf("Gate = %d (%s), want %d", got, why, c.want)
			}
			if got != Lasts && why == "" || !strings.Contains(why, c.why) || strings.Contains(why, "cannot tell") {
				t.Errorf("reason %q: want one that says %q, without repeating \"cannot tell\"", why, c.why)
			}
		})
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
