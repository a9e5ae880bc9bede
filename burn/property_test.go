package burn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// quantize is x as src reports it: floored to its resolution.
func quantize(x float64, src Source) float64 {
	if r := src.resolution(); r > 0 {
		return math.Floor(x/r+1e-9) * r
	}
	return x
}

// reported is quantize, or x rounded to src's resolution when round.
func reported(x float64, src Source, round bool) float64 {
	if r := src.resolution(); round && r > 0 {
		return math.Round(x/r) * r
	}
	return quantize(x, src)
}

// genSamples draws sample series as sources produce them (rising percent in
// one window instance, at a source's resolution) mixed with loose samples of
// any shape: other instances, unknown resets, odd percents.
func genSamples(t *rapid.T, now time.Time) []Sample {
	var out []Sample
	for i := range rapid.IntRange(0, 4).Draw(t, "series") {
		p := rapid.SampledFrom(providers).Draw(t, fmt.Sprint("p", i))
		w := rapid.SampledFrom([]int{300, 300, 10080}).Draw(t, fmt.Sprint("w", i))
		reset := now.Add(time.Duration(rapid.IntRange(-600, w*60).Draw(t, fmt.Sprint("reset", i))) * time.Second)
		if rapid.IntRange(0, 5).Draw(t, fmt.Sprint("unknown", i)) == 0 {
			reset = time.Time{}
		}
		src := rapid.SampledFrom(sources[:5]).Draw(t, fmt.Sprint("src", i))
		used := rapid.Float64Range(0, 90).Draw(t, fmt.Sprint("used", i))
		at := now.Add(-time.Duration(rapid.IntRange(0, 4*3600).Draw(t, fmt.Sprint("from", i))) * time.Second)
		for j := range rapid.IntRange(1, 30).Draw(t, fmt.Sprint("n", i)) {
			at = at.Add(time.Duration(rapid.IntRange(1, 600).Draw(t, fmt.Sprint("dt", i, j))) * time.Second)
			used += rapid.Float64Range(0, 3).Draw(t, fmt.Sprint("du", i, j))
			r := reset
			if !r.IsZero() {
				r = r.Add(time.Duration(rapid.IntRange(-120, 120).Draw(t, fmt.Sprint("jitter", i, j))) * time.Second)
			}
			out = append(out, smp(p, w, quantize(used, src), r, at, src))
		}
	}
	for i := range rapid.IntRange(0, 6).Draw(t, "loose") {
		s := Sample{
			ObservedAt:    now.Add(time.Duration(rapid.IntRange(-9*24*3600, 60).Draw(t, fmt.Sprint("lobs", i))) * time.Second),
			Provider:      rapid.SampledFrom(providers).Draw(t, fmt.Sprint("lp", i)),
			WindowMinutes: rapid.SampledFrom([]int{0, 300, 10080}).Draw(t, fmt.Sprint("lw", i)),
			Window:        rapid.SampledFrom([]WindowClass{"", FiveHour, Weekly}).Draw(t, fmt.Sprint("lc", i)),
			UsedPercent:   rapid.Float64Range(-5, 110).Draw(t, fmt.Sprint("lu", i)),
			Source:        rapid.SampledFrom(sources).Draw(t, fmt.Sprint("ls", i)),
		}
		if rapid.Bool().Draw(t, fmt.Sprint("lr", i)) {
			s.ResetsAt = now.Add(time.Duration(rapid.IntRange(-7*24*3600, 7*24*3600).Draw(t, fmt.Sprint("lra", i))) * time.Second)
		}
		out = append(out, s)
	}
	return out
}

func genEvents(t *rapid.T, now time.Time) ([]Event, []Activity) {
	var evs []Event
	var acts []Activity
	for i := range rapid.IntRange(0, 5).Draw(t, "sessions") {
		p := rapid.SampledFrom(providers).Draw(t, fmt.Sprint("sp", i))
		id := fmt.Sprint("s", i)
		for _, agent := range []string{"", "sub"}[:rapid.IntRange(1, 2).Draw(t, fmt.Sprint("streams", i))] {
			at := now.Add(-time.Duration(rapid.IntRange(0, 3*3600).Draw(t, fmt.Sprint("start", i, agent))) * time.Second)
			for j := range rapid.IntRange(0, 25).Draw(t, fmt.Sprint("events", i, agent)) {
				at = at.Add(time.Duration(rapid.IntRange(0, 120_000).Draw(t, fmt.Sprint("gap", i, agent, j))) * time.Millisecond)
				e := use(p, id, at, rapid.Float64Range(0, 200_000).Draw(t, fmt.Sprint("w", i, agent, j)))
				e.Agent = agent
				if rapid.Bool().Draw(t, fmt.Sprint("ts", i, agent, j)) {
					e.TurnStart = at.Add(-time.Duration(rapid.IntRange(0, 200).Draw(t, fmt.Sprint("turn", i, agent, j))) * time.Second)
				}
				evs = append(evs, e)
			}
		}
		if rapid.Bool().Draw(t, fmt.Sprint("act", i)) {
			acts = append(acts, Activity{Provider: p, Session: id,
				At:        now.Add(-time.Duration(rapid.IntRange(-10, 300).Draw(t, fmt.Sprint("acta", i))) * time.Second),
				TurnEnded: rapid.Bool().Draw(t, fmt.Sprint("ended", i))})
		}
	}
	return evs, acts
}

func genInput(t *rapid.T) Input {
	now := t0.Add(time.Duration(rapid.IntRange(0, 1_000_000).Draw(t, "now")) * time.Second)
	evs, acts := genEvents(t, now)
	in := Input{Now: now, Events: evs, Activity: acts}
	if rapid.Bool().Draw(t, "coherent") {
		in.Samples = coherentSamples(t, now, evs)
	} else {
		in.Samples = genSamples(t, now)
	}
	return in
}

// coherentSamples is an account that the events (and maybe a burn
// elsewhere) really used, sampled by one source per provider that may have
// stopped reporting a while ago.
func coherentSamples(t *rapid.T, now time.Time, evs []Event) []Sample {
	var out []Sample
	sorted := slices.Clone(evs)
	slices.SortFunc(sorted, func(a, b Event) int { return a.At.Compare(b.At) })
	for _, p := range providers {
		src := rapid.SampledFrom(sources[:5]).Draw(t, "csrc")
		capacity := rapid.Float64Range(1e5, 1e8).Draw(t, "capacity")
		elsewhere := rapid.Float64Range(0, 1).Draw(t, "elsewhere") * rapid.Float64Range(0, 5000).Draw(t, "erate")
		used0 := rapid.Float64Range(0, 60).Draw(t, "used0")
		reset := now.Add(time.Duration(rapid.IntRange(1, 300).Draw(t, "creset")) * time.Minute)
		start := reset.Add(-5 * time.Hour)
		stop := now.Add(-time.Duration(rapid.IntRange(0, 1800).Draw(t, "stopped")) * time.Second)
		every := time.Duration(rapid.IntRange(5, 300).Draw(t, "every")) * time.Second
		local, i := 0.0, 0
		for at := now.Add(-3 * time.Hour); !at.After(stop); at = at.Add(every) {
			for ; i < len(sorted) && !sorted[i].At.After(at); i++ {
				if e := sorted[i]; e.Provider == p && !e.At.Before(start) {
					local += e.Weighted
				}
			}
			if at.Before(start) {
				continue
			}
			tokens := local + elsewhere*at.Sub(start).Seconds()
			out = append(out, smp(p, 300, quantize(min(used0+tokens/capacity*100, 100), src), reset, at, src))
		}
	}
	return out
}

// checkSnapshot asserts what must hold of every snapshot.
func checkSnapshot(t fataler, s Snapshot) {
	nonneg := func(what string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			t.Fatalf("%s = %v", what, x)
		}
	}
	mh := map[Provider]float64{}
	for _, p := range s.Providers {
		nonneg("provider m/h", p.Burn.QuotaMinutesPerHour)
		nonneg("provider %/s", p.Burn.PercentPerS)
		nonneg("elsewhere", p.ElsewhereQuotaMinutesPerHour)
		nonneg("minutes before reset", p.RunoutMinutesBeforeReset)
		for _, w := range []*WindowStatus{p.Window, p.Weekly} {
			if w == nil {
				continue
			}
			nonneg("used", w.UsedPercent)
			nonneg("window m/h", w.Burn.QuotaMinutesPerHour)
			nonneg("window minutes before reset", w.RunoutMinutesBeforeReset)
			if w.RunoutAt != nil && (w.ResetsAt == nil || w.RunoutAt.Before(s.At) || !w.RunoutAt.Before(*w.ResetsAt)) {
				t.Fatalf("run-out %v outside [now %v, reset %v)", w.RunoutAt, s.At, w.ResetsAt)
			}
			if w.Reset && (w.UsedPercent != 0 || w.State != NoData) {
				t.Fatalf("a reset window shows %v %%, %s", w.UsedPercent, w.State)
			}
			// The pace that lasts says what the verdict says: a burn above
			// it runs out before the reset, one below it lasts.
			if b := w.Burn; b.Known() && w.State != Exhausted {
				nonneg("sustainable m/h", b.SustainableQuotaMinutesPerHour)
				above := b.QuotaMinutesPerHour > b.SustainableQuotaMinutesPerHour*(1+1e-6)
				below := b.QuotaMinutesPerHour < b.SustainableQuotaMinutesPerHour*(1-1e-6)
				if above && !w.RunsOut() || below && w.RunsOut() {
					t.Fatalf("burn %v m/h against a sustainable %v m/h, run-out %v, reset %v", b.QuotaMinutesPerHour, b.SustainableQuotaMinutesPerHour, w.RunoutAt, w.ResetsAt)
				}
			}
		}
		mh[p.Provider] = p.ElsewhereQuotaMinutesPerHour
		for _, x := range s.SessionsOfStatus(p) {
			// The pause figures are of the window that binds.
			runout := p.RunoutAt
			if x.PauseWindow == Weekly {
				runout = p.Weekly.RunoutAt
			}
			if x.PauseRunoutAt != nil && runout != nil && x.PauseRunoutAt.Before(*runout) {
				t.Fatalf("pausing %s makes the run-out earlier: %v < %v", x.ID, x.PauseRunoutAt, runout)
			}
		}
	}
	for _, x := range s.Sessions {
		nonneg("tokens/s", x.TokensPerS)
		nonneg("session m/h", x.QuotaMinutesPerHour)
		nonneg("pause gain", x.PauseGainMinutes)
		mh[x.Provider] += x.QuotaMinutesPerHour
		if x.RateKind == Idle && (x.TokensPerS != 0 || x.QuotaMinutesPerHour != 0) {
			t.Fatalf("%s session %s shows %v tokens/s, %v m/h", x.RateKind, x.ID, x.TokensPerS, x.QuotaMinutesPerHour)
		}
	}
	for _, p := range s.Providers {
		if got, lim := mh[p.Provider], p.Burn.QuotaMinutesPerHour; got > lim*(1+1e-9)+1e-9 {
			t.Fatalf("%s: sessions and elsewhere attribute %v m/h of %v", p.Provider, got, lim)
		}
	}
	roundTrip(t, s)
}

// TestPropertySnapshot: no NaN, infinity or negative figure; attributed
// m/h never exceed the provider's; run-outs fall before the reset; pausing
// never brings a run-out forward; the JSON round-trips.
func TestPropertySnapshot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		s := Compute(in, DefaultConfig())
		checkSnapshot(t, s)
		ns, mem := Decide(s, NoticeMemory{}, DefaultConfig())
		if again, _ := Decide(s, mem, DefaultConfig()); len(again) != 0 {
			t.Fatalf("the same snapshot notifies twice: %+v then %+v", ns, again)
		}
	})
}

// TestPropertyMoreRemaining: lowering every sample of a provider by the
// same amount (more remaining, same pace) never brings its run-out forward.
func TestPropertyMoreRemaining(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		lowest := math.Inf(1)
		for _, s := range in.Samples {
			lowest = min(lowest, s.UsedPercent)
		}
		if len(in.Samples) == 0 || lowest <= 0 {
			t.Skip("nothing to lower")
		}
		c := rapid.Float64Range(0, lowest).Draw(t, "lower")
		lowered := in
		lowered.Samples = nil
		for _, s := range in.Samples {
			s.UsedPercent -= c
			lowered.Samples = append(lowered.Samples, s)
		}
		a, b := Compute(in, DefaultConfig()), Compute(lowered, DefaultConfig())
		for i, p := range a.Providers {
			q := b.Providers[i]
			if p.State == Exhausted || p.RunoutAt == nil && q.RunoutAt == nil {
				continue
			}
			// Lowered percents differ from the originals in their last bits:
			// a run-out a nanosecond earlier is float noise (surfaces show seconds).
			if p.RunoutAt == nil || q.RunoutAt != nil && q.RunoutAt.Before(p.RunoutAt.Add(-time.Millisecond)) {
				t.Fatalf("%s: %v more remaining moved the run-out from %v to %v", p.Provider, c, p.RunoutAt, q.RunoutAt)
			}
		}
	})
}

// TestPropertyRemoveSession: dropping a session never brings a run-out
// forward, without calibration (which learns its ratio from the sessions'
// past tokens); with it, pausing is checked on every snapshot.
func TestPropertyRemoveSession(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Calibrate = false
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		if len(in.Events) == 0 {
			t.Skip("no session")
		}
		drop := rapid.SampledFrom(in.Events).Draw(t, "drop").Session
		fewer := in
		fewer.Events, fewer.Activity = nil, nil
		for _, e := range in.Events {
			if e.Session != drop {
				fewer.Events = append(fewer.Events, e)
			}
		}
		for _, a := range in.Activity {
			if a.Session != drop {
				fewer.Activity = append(fewer.Activity, a)
			}
		}
		a, b := Compute(in, cfg), Compute(fewer, cfg)
		for _, p := range a.Providers {
			q := b.Provider(p.Provider)
			if q == nil || p.RunoutAt == nil {
				continue
			}
			if q.RunoutAt != nil && q.RunoutAt.Before(*p.RunoutAt) {
				t.Fatalf("%s: without %s the run-out moved from %v to %v", p.Provider, drop, p.RunoutAt, q.RunoutAt)
			}
		}
	})
}

// TestPropertyNearReset: within ten minutes of the reset and without a
// fresh velocity, the burn is the window's average, never the remaining
// percent over the time left.
func TestPropertyNearReset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := t0
		w := rapid.SampledFrom([]int{300, 10080}).Draw(t, "w")
		reset := now.Add(time.Duration(rapid.IntRange(1, 600).Draw(t, "toReset")) * time.Second)
		src := rapid.SampledFrom(sources[:5]).Draw(t, "src")
		var ss []Sample
		used := rapid.Float64Range(0, 99).Draw(t, "used")
		obs := now.Add(-time.Duration(rapid.IntRange(181, 4*3600).Draw(t, "age")) * time.Second)
		for i := range rapid.IntRange(1, 10).Draw(t, "n") {
			ss = append(ss, smp(Claude, w, quantize(used, src), reset, obs, src))
			obs = obs.Add(-time.Duration(rapid.IntRange(1, 600).Draw(t, fmt.Sprint("dt", i))) * time.Second)
			used = max(0, used-rapid.Float64Range(0, 5).Draw(t, fmt.Sprint("du", i)))
		}
		s := Compute(Input{Now: now, Samples: ss}, DefaultConfig())
		p := mustWindow(t, s, Claude)
		top := p.Window.UsedPercent / 100 * 60 * float64(w) / (float64(w) - 10)
		if p.Burn.Method != MethodAverage || p.Burn.QuotaMinutesPerHour > top*(1+1e-9) {
			t.Fatalf("%s burn %v m/h, the average allows %v", p.Burn.Method, p.Burn.QuotaMinutesPerHour, top)
		}
	})
}

// mustWindow is p's status, which must have a window.
func mustWindow(t fataler, s Snapshot, p Provider) ProviderStatus {
	t.Helper()
	ps := s.Provider(p)
	if ps == nil || ps.Window == nil {
		t.Fatalf("no %s window: %+v", p, s.Providers)
	}
	return *ps
}

// drawSteady is a steady burn read through one of sources, polled at any
// interval, with endpoint throttling gaps and statusline silences.
func drawSteady(t *rapid.T, sources []Source, below95 bool) (Source, float64, []Sample) {
	src := rapid.SampledFrom(sources).Draw(t, "src")
	mh := rapid.Float64Range(10, 400).Draw(t, "mh")
	pps := mhPPS(mh, 300)
	used := rapid.Float64Range(0, 40).Draw(t, "used")
	round := rapid.Bool().Draw(t, "round")
	span := time.Duration(rapid.IntRange(20, 60).Draw(t, "span")) * time.Minute
	if below95 {
		span = min(span, sec((95-used)/pps)) // below 100 %: a full window ticks no more
	}
	var ss []Sample
	for d := time.Duration(0); d <= span; {
		ss = append(ss, smp(Claude, 300, reported(used+pps*d.Seconds(), src, round), t0.Add(4*time.Hour), t0.Add(d), src))
		if rapid.IntRange(0, 9).Draw(t, fmt.Sprint("kind", len(ss))) == 0 { // a 429 spell or a long tool call
			d += time.Duration(rapid.IntRange(3, 15).Draw(t, fmt.Sprint("gap", len(ss)))) * time.Minute
		} else {
			d += time.Duration(rapid.IntRange(10, 120).Draw(t, fmt.Sprint("dt", len(ss)))) * time.Second
		}
	}
	return src, mh, ss
}

// A steady burn never reads as a change of pace: the velocity keeps its whole span.
func TestPropertyNoFalseChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src, mh, series := drawSteady(t, []Source{SourceStatusline, SourceOAuth, SourceCodexRPC, SourceCodexLog}, false)
		series = seriesOf(series)
		if len(series) < 2 {
			return
		}
		if got, _ := sinceChange(series, src.resolution(), 4*time.Hour, time.Minute); len(got) != len(series) {
			t.Fatalf("%s at %.0f m/h: a change of pace found at %v of a steady series of %d samples",
				src, mh, got[0].ObservedAt.Sub(t0), len(series))
		}
	})
}

// A session at a steady rate is rarely a change of pace (never is no law:
// three large responses after seven small ones happen by chance), counted
// over a fixed set of 4,000 steady sessions.
func TestNoFalseSessionChangeOnSteadyPace(t *testing.T) {
	const sessions = 4000
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range sessions {
		rate := 50 + r.Float64()*4950
		spread := r.Float64() * 0.3
		var ev []Event
		at := t0
		for range 2 + r.IntN(79) {
			gap := time.Duration(3+r.IntN(58)) * time.Second
			at = at.Add(gap)
			ev = append(ev, use(Claude, "s", at, rate*gap.Seconds()*math.Exp(spread*(4*r.Float64()-2))))
		}
		if paceStart(ev, 0, 10*time.Second) != 0 {
			found++
		}
	}
	// 1 of 4,000 on this set; the bound leaves room for a change to the
	// detector, not for a detector that sees changes in noise.
	if rate := float64(found) / sessions; rate > 0.001 {
		t.Errorf("a change of pace found in %d of %d steady sessions (%.2f%%)", found, sessions, 100*rate)
	}
	t.Logf("false changes: %d of %d steady sessions", found, sessions)
}

// Whole-percent ticks of a steady pace, 429 gaps included, make a figure
// settling only when it is off the true pace by more than 15 %.
func TestPropertySteadyTicksNotSettling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src, mh, ss := drawSteady(t, []Source{SourceOAuth, SourceCodexRPC, SourceOAuthCache}, true)
		now := ss[len(ss)-1].ObservedAt
		p := mustWindow(t, Compute(Input{Now: now, Samples: ss}, DefaultConfig()), Claude)
		fig := p.Burn.QuotaMinutesPerHour
		if p.Burn.Settling && !(max(fig/mh, mh/fig) > 1.15) {
			t.Fatalf("%s at %.0f m/h: %s %.1f m/h reads as settling on steady ticks", src, mh, p.Burn.Method, fig)
		}
	})
}

// Steady local sessions next to a steady burn elsewhere, on a 0.1 %
// statusline read after each response: what the local tokens do not explain
// keeps one pace, so no change of it is found, responses of uneven size and
// pauses included.
func TestPropertyNoFalseResidualChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const capacity = 24e6
		rate := rapid.Float64Range(200, 5000).Draw(t, "rate")
		elsewhere := rapid.Float64Range(0, 3000).Draw(t, "elsewhere")
		spread := rapid.Float64Range(0, 0.5).Draw(t, "spread")
		used := rapid.Float64Range(0, 30).Draw(t, "used")
		var ev []Event
		var ss []Sample
		at, burnt := t0, 0.0
		for i := 0; at.Before(t0.Add(45 * time.Minute)); i++ {
			gap := time.Duration(rapid.IntRange(5, 70).Draw(t, fmt.Sprint("gap", i))) * time.Second
			at = at.Add(gap)
			size := rate * gap.Seconds() * math.Exp(spread*rapid.Float64Range(-2, 2).Draw(t, fmt.Sprint("size", i)))
			ev = append(ev, use(Claude, "s", at, size))
			burnt += size
			u := used + (burnt+elsewhere*at.Sub(t0).Seconds())/capacity*100
			ss = append(ss, smp(Claude, 300, quantize(u, SourceStatusline), t0.Add(4*time.Hour), at.Add(300*time.Millisecond), SourceStatusline))
		}
		if r, ok := unexplained(ss, SourceStatusline, tokensOf(ev), 100/capacity, 300, DefaultConfig()); ok {
			t.Fatalf("a change of the unexplained burn found at %v (%.2f %%/min)", r.since.Sub(t0), r.pps*60)
		}
	})
}
