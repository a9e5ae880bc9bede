package burn

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// holdFixture is the demo's story: the statusline reported a burn of 108
// m/h every 30 s for 20 minutes up to last (58 %), the 5-hour window resets
// 90 minutes after last, and two sessions wrote usage until 10 s before
// last. At 108 m/h the 42 % left last 70 minutes: 20 before the reset.
func holdFixture(last time.Time) Input {
	pps := mhPPS(108, 300)
	reset := last.Add(90 * time.Minute)
	var ss []Sample
	for i := 40; i >= 0; i-- {
		t := last.Add(-time.Duration(i) * 30 * time.Second)
		ss = append(ss, smp(Claude, 300, quantize(58-pps*float64(i*30)+1e-9, SourceStatusline), reset, t, SourceStatusline))
	}
	return Input{
		Samples: ss,
		Events: concat(
			steady(Claude, "big", "", last.Add(-20*time.Minute), last.Add(-10*time.Second), 12*time.Second, 1500),
			steady(Claude, "small", "", last.Add(-20*time.Minute), last.Add(-10*time.Second), 18*time.Second, 500),
		),
	}
}

func TestHold(t *testing.T) {
	last := at(3 * time.Hour)
	reset := last.Add(90 * time.Minute)
	runout := last.Add(70 * time.Minute)
	waiting := func(now time.Time) []Activity { // tools write lines, no usage
		return []Activity{
			{Provider: Claude, Session: "big", At: now.Add(-20 * time.Second)},
			{Provider: Claude, Session: "small", At: now.Add(-40 * time.Second)},
		}
	}
	ended := func(bigAt, smallAt time.Duration) func(in *Input) {
		return func(in *Input) {
			in.Activity = []Activity{
				{Provider: Claude, Session: "big", At: last.Add(-bigAt), TurnEnded: true},
				{Provider: Claude, Session: "small", At: last.Add(-smallAt), TurnEnded: true},
			}
		}
	}
	// flat makes the statusline report one value for the last span of samples.
	flat := func(span time.Duration) func(in *Input) {
		return func(in *Input) {
			for i := range in.Samples {
				if d := last.Sub(in.Samples[i].ObservedAt); d <= span {
					in.Samples[i].UsedPercent = quantize(58-mhPPS(108, 300)*span.Seconds()+1e-9, SourceStatusline)
				}
			}
		}
	}
	newer := func(used float64) func(in *Input) {
		return func(in *Input) {
			in.Samples = append(in.Samples, smp(Claude, 300, used, reset, last.Add(6*time.Minute), SourceOAuth))
		}
	}
	// One table, one check: each case edits the demo's story.
	tests := []struct {
		name   string
		after  time.Duration // now − last
		edit   func(in *Input)
		held   bool
		loose  bool   // held at a pace the flat samples lowered
		method Method // when not held
		off    bool   // the hold is off
	}{
		{name: "10 minutes without a sample, sessions waiting", after: 10 * time.Minute, held: true,
			edit: func(in *Input) { in.Activity = waiting(in.Now) }},
		// A long tool call writes nothing: the sessions read as idle, but no turn ended.
		{name: "10 minutes without a sample or a line, no turn ended", after: 10 * time.Minute, held: true},
		{name: "every session ended its turn", after: 4 * time.Minute, method: MethodAverage, edit: ended(5*time.Second, 8*time.Second)},
		{name: "one session ended its turn, the other did not", after: 4 * time.Minute, held: true,
			edit: func(in *Input) {
				in.Activity = []Activity{{Provider: Claude, Session: "big", At: last.Add(-5 * time.Second), TurnEnded: true}}
			}},
		{name: "a turn ended before the session wrote again", after: 4 * time.Minute, held: true, edit: ended(time.Minute, 8*time.Second)},
		// The burn stopped: 58 % for the last 5 minutes of samples.
		{name: "percent unchanged over 5 minutes of samples", after: 4 * time.Minute, method: MethodAverage,
			edit: func(in *Input) {
				flat(5 * time.Minute)(in)
				in.Events = concat(
					steady(Claude, "big", "", last.Add(-20*time.Minute), last.Add(-5*time.Minute), 12*time.Second, 1500),
					steady(Claude, "small", "", last.Add(-20*time.Minute), last.Add(-5*time.Minute), 18*time.Second, 500))
			}},
		// One minute of no move is a pause between replies, not a stop.
		{name: "percent unchanged over 1 minute of samples", after: 4 * time.Minute, held: true, loose: true, edit: flat(time.Minute)},
		// The endpoint says 58 % six minutes on: the pace would have made it 61.6 %.
		{name: "a newer whole-percent sample that did not move", after: 8 * time.Minute, method: MethodAverage, edit: newer(58)},
		{name: "a newer whole-percent sample that moved with the pace", after: 8 * time.Minute, held: true, edit: newer(61)},
		{name: "the holding time expired", after: 15*time.Minute + time.Second, method: MethodAverage},
		// A pace seen over 2 minutes is held 2 minutes at most.
		{name: "older than the span it was measured over", after: 4 * time.Minute, method: MethodAverage,
			edit: func(in *Input) {
				in.Samples = slices.DeleteFunc(in.Samples, func(s Sample) bool { return last.Sub(s.ObservedAt) > 2*time.Minute })
			}},
		{name: "no local session: nothing says the burn goes on", after: 4 * time.Minute, method: MethodAverage,
			edit: func(in *Input) { in.Events = nil }},
		// The reference: the sessions' decaying rates, calibrated.
		{name: "the hold is off", after: 4 * time.Minute, method: MethodCalibrated, off: true,
			edit: func(in *Input) { in.Activity = waiting(in.Now) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := holdFixture(last)
			in.Now = last.Add(tt.after)
			if tt.edit != nil {
				tt.edit(&in)
			}
			cfg := DefaultConfig()
			if tt.off {
				cfg.VelocityHold = -1
			}
			s := Compute(in, cfg)
			p := mustProvider(t, s, Claude)
			w := p.Window
			if w.Fresh != (in.Now.Sub(w.ObservedAt) <= cfg.SampleFresh && !tt.held) {
				t.Errorf("fresh %v with a sample %v old, held %v", w.Fresh, in.Now.Sub(w.ObservedAt), tt.held)
			}
			if !tt.held {
				if p.Burn.Method != tt.method || p.State != OnTrack || p.RunoutAt != nil {
					t.Fatalf("%s %.1f m/h, %s, run-out %v; want %s, on track", p.Burn.Method, p.Burn.QuotaMinutesPerHour, p.State, p.RunoutAt, tt.method)
				}
				return
			}
			if p.Burn.Method != MethodMeasured || p.State != RunoutBeforeReset || p.RunoutAt == nil || p.Worst() != RunoutBeforeReset {
				t.Fatalf("%s %.1f m/h, %s, run-out %v; want the measured 108 m/h running out before the reset", p.Burn.Method, p.Burn.QuotaMinutesPerHour, p.State, p.RunoutAt)
			}
			if !tt.loose {
				near(t, "m/h", p.Burn.QuotaMinutesPerHour, 108, 3)
				near(t, "minutes off the run-out seen when fresh", p.RunoutAt.Sub(runout).Minutes(), 0, 1.5)
				near(t, "minutes before reset", p.RunoutMinutesBeforeReset, 20, 1.5)
			}
			if w.Burn != p.Burn || w.RunoutAt == nil || !w.RunoutAt.Equal(*p.RunoutAt) {
				t.Errorf("window %+v differs from the provider's %+v", w.Burn, p.Burn)
			}
		})
	}
}

// quietCodex: a Codex session burned mh m/h of a 5-hour window until 5
// minutes before now, its rollout reporting the percent every 30 s for the
// last n intervals up to used, then went quiet (a long tool call).
func quietCodex(now, reset time.Time, mh, used float64, n int) Input {
	pps := mhPPS(mh, 300)
	var ss []Sample
	for i := n; i >= 0; i-- {
		ss = append(ss, smp(Codex, 300, used-pps*float64(i*30), reset, now.Add(-5*time.Minute-time.Duration(i)*30*time.Second), SourceCodexLog))
	}
	return Input{Now: now, Samples: ss, Events: steady(Codex, "a", "", now.Add(-20*time.Minute), now.Add(-5*time.Minute), 10*time.Second, 1000)}
}

// TestHoldNearReset: in the window's last thirtieth a stale pace is not
// held; the average rules there (see TestPropertyNearReset).
func TestHoldNearReset(t *testing.T) {
	now := at(3 * time.Hour)
	for _, tt := range []struct {
		toReset time.Duration
		method  Method
	}{{11 * time.Minute, MethodMeasured}, {10 * time.Minute, MethodAverage}} {
		// 300 m/h until 5 minutes ago, 75 % used.
		in := quietCodex(now, now.Add(tt.toReset), 300, 75, 20)
		p := mustProvider(t, Compute(in, DefaultConfig()), Codex)
		if p.Burn.Method != tt.method {
			t.Errorf("%v before the reset: %s %.1f m/h, want %s", tt.toReset, p.Burn.Method, p.Burn.QuotaMinutesPerHour, tt.method)
		}
	}
}

// TestHoldOnlyWarns: a held pace slower than the fallback is not shown; the
// window's average says more.
func TestHoldOnlyWarns(t *testing.T) {
	now := at(3 * time.Hour)
	// The window opened 20 minutes ago and is 40 % used (600 m/h on
	// average); the last measured pace was 60 m/h, 5 minutes ago.
	in := quietCodex(now, now.Add(280*time.Minute), 60, 40, 10)
	p := mustProvider(t, Compute(in, DefaultConfig()), Codex)
	if p.Burn.Method != MethodAverage || p.RunoutAt == nil {
		t.Fatalf("%s %.1f m/h run-out %v, want the average's run-out", p.Burn.Method, p.Burn.QuotaMinutesPerHour, p.RunoutAt)
	}
}

// TestPropertyHoldNeverRosier: holding a velocity never makes a run-out
// later, a state milder or a figure fresh.
func TestPropertyHoldNeverRosier(t *testing.T) {
	off := DefaultConfig()
	off.VelocityHold = -1
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		a, b := Compute(in, DefaultConfig()), Compute(in, off)
		checkSnapshot(t, a)
		if len(a.Providers) != len(b.Providers) {
			t.Fatalf("providers %d with the hold, %d without", len(a.Providers), len(b.Providers))
		}
		for i, p := range a.Providers {
			q := b.Providers[i]
			pairs := [][2]*WindowStatus{{p.Window, q.Window}, {p.Weekly, q.Weekly}}
			for _, pr := range pairs {
				w, x := pr[0], pr[1]
				if w == nil || x == nil {
					continue
				}
				what := fmt.Sprintf("%s %s", p.Provider, w.Class)
				if w.State.Severity() < x.State.Severity() {
					t.Fatalf("%s: %s with the hold, %s without", what, w.State, x.State)
				}
				if x.RunoutAt != nil && (w.RunoutAt == nil || w.RunoutAt.After(*x.RunoutAt)) {
					t.Fatalf("%s: run-out %v with the hold, %v without", what, w.RunoutAt, x.RunoutAt)
				}
				if w.Burn != x.Burn && (w.Burn.Method != MethodMeasured || w.Fresh) {
					t.Fatalf("%s: held burn %+v (fresh %v), without %+v", what, w.Burn, w.Fresh, x.Burn)
				}
			}
		}
	})
}
