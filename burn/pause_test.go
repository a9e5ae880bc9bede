package burn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A turnSession works in turns as a person drives it: a prompt, a few
// responses (tool calls) while the agent works, the last ending its turn,
// then the person reads and types for a while before the next prompt.
type turnSession struct {
	id            string
	work          float64       // weighted tokens per second while the agent works
	step          time.Duration // between responses of a turn (jittered)
	think         [2]time.Duration
	responses     [2]int        // per turn, inclusive range
	start, stopAt time.Duration // relative to t0; stopAt 0: never stops
}

// A turnRun is what a set of turn sessions wrote: usage events, the lines
// that were not usage (prompts), and the percent samples a 0.1 % statusline
// would give after each response.
type turnRun struct {
	events  []Event
	prompts []Activity
	charges []charge
}

func runTurns(seed uint64, provider Provider, sessions []turnSession, end time.Duration) turnRun {
	rng := rand.New(rand.NewPCG(seed, 11))
	var r turnRun
	between := func(a, b time.Duration) time.Duration { return a + time.Duration(rng.Float64()*float64(b-a)) }
	for _, ts := range sessions {
		d := ts.start
		for d < end && (ts.stopAt == 0 || d < ts.stopAt) {
			r.prompts = append(r.prompts, Activity{Provider: provider, Session: ts.id, At: at(d)})
			n := ts.responses[0] + rng.IntN(ts.responses[1]-ts.responses[0]+1)
			prev := d
			for k := range n {
				d += between(ts.step*6/10, ts.step*14/10)
				e := use(provider, ts.id, at(d), ts.work*(d-prev).Seconds())
				e.TurnStart = at(prev)
				e.EndsTurn = k == n-1
				e.Key = ts.id + at(d).Format(time.RFC3339Nano)
				r.events = append(r.events, e)
				r.charges = append(r.charges, charge{at(d), e.Weighted})
				prev = d
			}
			d += between(ts.think[0], ts.think[1])
		}
	}
	slices.SortFunc(r.charges, func(a, b charge) int { return a.at.Compare(b.at) })
	return r
}

// input is what runway reads at now: the events so far, each session's
// newest line, and a statusline sample after each response (the percent
// of the tokens charged so far over capacity, on top of used0).
func (r turnRun) input(provider Provider, now time.Time, used0 float64, reset time.Time) Input {
	in := Input{Now: now}
	newest := map[string]Activity{}
	for _, e := range r.events {
		if e.At.After(now) {
			continue
		}
		in.Events = append(in.Events, e)
		if a, ok := newest[e.Session]; !ok || !e.At.Before(a.At) {
			newest[e.Session] = Activity{Provider: provider, Session: e.Session, At: e.At, TurnEnded: e.EndsTurn}
		}
	}
	for _, p := range r.prompts {
		if a, ok := newest[p.Session]; !p.At.After(now) && (!ok || p.At.After(a.At)) {
			newest[p.Session] = p
		}
	}
	for _, a := range newest {
		in.Activity = append(in.Activity, a)
	}
	slices.SortFunc(in.Activity, func(a, b Activity) int { return a.At.Compare(b.At) })
	tokens := 0.0
	for _, c := range r.charges {
		if c.at.After(now) {
			break
		}
		tokens += c.tokens
		t := c.at.Add(300 * time.Millisecond)
		if !t.After(now) {
			in.Samples = append(in.Samples, smp(provider, 300, math.Floor((used0+tokens/capacity*100)*10+1e-9)/10, reset, t, SourceStatusline))
		}
	}
	return in
}

// meanPace is the sessions' true pace over the last span before d, in
// quota minutes per hour of a 5-hour window at capacity.
func (r turnRun) meanPace(d, span time.Duration) float64 {
	tokens := 0.0
	for _, c := range r.charges {
		if c.at.After(at(d-span)) && !c.at.After(at(d)) {
			tokens += c.tokens
		}
	}
	return quotaMinutesPerHour(tokens/span.Seconds()/capacity*100, 300)
}

// twoDrivenSessions are two sessions a person drives in turns: 3–6
// responses 8–20 s apart, then 20–90 s reading and typing.
func twoDrivenSessions() []turnSession {
	return []turnSession{
		{id: "api", work: 3000, step: 12 * time.Second, think: [2]time.Duration{20 * time.Second, 90 * time.Second}, responses: [2]int{3, 6}, start: -40 * time.Minute},
		{id: "web", work: 2000, step: 14 * time.Second, think: [2]time.Duration{20 * time.Second, 90 * time.Second}, responses: [2]int{3, 6}, start: -38 * time.Minute},
	}
}

// A turn's end is a pause, not a stop: across 20 turns of each session,
// checked every 10 s, the account burn stays within 15 % of their pace.
func TestTurnEndIsAPause(t *testing.T) {
	reset := at(3 * time.Hour)
	for _, c := range []struct {
		name     string
		sessions []turnSession
	}{
		{"two sessions", twoDrivenSessions()},
		{"one session", twoDrivenSessions()[:1]},
	} {
		r := runTurns(3, Claude, c.sessions, 30*time.Minute)
		mean := r.meanPace(0, 40*time.Minute)
		lo, hi := math.Inf(1), 0.0
		bad, marked, n := 0, 0, 0
		for d := time.Duration(0); d <= 30*time.Minute; d += 10 * time.Second {
			p := mustProvider(t, Compute(r.input(Claude, at(d), 30, reset), DefaultConfig()), Claude)
			mh := p.Burn.QuotaMinutesPerHour
			lo, hi = min(lo, mh), max(hi, mh)
			// The pace the turns realized over the last quarter hour:
			// what any estimator can know of random turn lengths.
			truth := r.meanPace(d, 15*time.Minute)
			n++
			if p.Burn.Marker() == "~" {
				marked++
			}
			if math.Abs(mh-truth)/truth > 0.15 {
				bad++
				if bad <= 5 {
					t.Errorf("%s +%v: %.1f m/h (%s), the sessions' pace %.1f", c.name, d, mh, p.Burn.Label(), truth)
				}
			}
		}
		t.Logf("%s: pace %.1f m/h (40 min mean); burn from %.1f to %.1f m/h; off the last 15 min's pace by more than 15 %% at %d of %d checks; marked ~ at %d", c.name, mean, lo, hi, bad, n, marked)
	}
}

// A real stop is still seen: a session that ends its turn and never comes
// back drops out of the burn within about two minutes (the other session
// goes on, its statusline reading the percent at the slower pace).
func TestTurnEndThenStop(t *testing.T) {
	reset := at(3 * time.Hour)
	ss := twoDrivenSessions()
	ss[0].stopAt = time.Second // api's last turn is the one under way at t0
	r := runTurns(3, Claude, ss, 30*time.Minute)
	var stop time.Time
	for _, e := range r.events {
		if e.Session == "api" {
			stop = maxTime(stop, e.At)
		}
	}
	web := r.meanPace(30*time.Minute, 25*time.Minute)
	for _, after := range []time.Duration{150 * time.Second, 3 * time.Minute, 5 * time.Minute, 10 * time.Minute} {
		now := stop.Add(after)
		p := mustProvider(t, Compute(r.input(Claude, now, 30, reset), DefaultConfig()), Claude)
		if rel := math.Abs(p.Burn.QuotaMinutesPerHour-web) / web; rel > 0.25 {
			t.Errorf("%v after the stop: %.1f m/h (%s), the remaining session's pace %.1f", after, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), web)
		}
	}
}

// One huge response no percent rise confirms (a new session's first, or a
// remote sender's) must not lower a burn of 180 m/h nor open the gate.
func TestOneResponseCannotDragTheFigure(t *testing.T) {
	sc := scenario{
		name: "steady 180", provider: Claude, used0: 30, reset: 3 * time.Hour,
		streams: steadyPair("big", "small", 2700, 1300, 12*time.Second), source: SourceStatusline,
		checks: minutesList(10),
	}
	r := sc.run()
	first := use(Claude, "new", at(0), 1e6)
	first.TurnStart = at(-20 * time.Second)
	var remote []Event
	for i := range 3 {
		e := use(Claude, "remote", at(time.Duration(i)*time.Second), 99_999_999)
		e.Host = "box"
		remote = append(remote, e)
	}
	for _, c := range []struct {
		name  string
		extra []Event
	}{
		{"a first response of 1M weighted tokens", []Event{first}},
		{"three of 99,999,999 from a remote sender", remote},
	} {
		for _, d := range []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute} {
			snap := Compute(sc.input(r, at(d), c.extra...), DefaultConfig())

			p := mustProvider(t, snap, Claude)
			want := sc.truth(r, d)
			gate, why := Gate(snap)
			t.Logf("%s, +%v: %.1f m/h (%s), true %.1f; gate %d", c.name, d, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), want.mh, gate)
			if gate == Lasts {
				t.Errorf("%s, +%v: gate %d (%s), burn %.1f m/h (%s), true %.1f", c.name, d, gate, why, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), want.mh)
			}
			if p.Burn.QuotaMinutesPerHour < 0.75*want.mh {
				t.Errorf("%s, +%v: burn %.1f m/h (%s), true %.1f", c.name, d, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), want.mh)
			}
		}
	}
}

// A new session's first turn counts what the percent charged for it, not
// its idle peer's capped rate (a Codex burst at 4,000 tokens/s beside 300).
func TestFirstTurnCountsWhatThePercentCharged(t *testing.T) {
	sc := scenario{
		name: "codex burst", provider: Codex, used0: 30, reset: 3 * time.Hour,
		streams: []simStream{
			{session: "idle", phases: []phase{{-40 * time.Minute, 300}}, every: 15 * time.Second},
			{session: "burst", phases: []phase{{-60 * time.Second, 4000}}, every: 60 * time.Second},
		},
		source: SourceCodexLog, checks: minutesList(5),
	}
	r := sc.run()
	for _, d := range []time.Duration{10 * time.Second, 30 * time.Second} {
		p, snap, want := sc.evalAt(r, d)
		if rel := math.Abs(p.Burn.QuotaMinutesPerHour-want.mh) / want.mh; rel > 0.15 {
			t.Errorf("+%v: %.1f m/h (%s), true %.1f", d, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), want.mh)
		}
		b := sessionByID(snap, "burst")
		if share := b.QuotaMinutesPerHour / p.Burn.QuotaMinutesPerHour; math.Abs(share-want.share["burst"]) > 0.1 {
			t.Errorf("+%v: the new session's share %.0f %%, true %.0f %%", d, share*100, want.share["burst"]*100)
		}
	}
}

// A series whose net move is float noise has no change of pace
// (TestPropertyMoreRemaining).
func TestChangeScoreNoNetAmount(t *testing.T) {
	var at []time.Time
	for i := range 8 {
		at = append(at, t0.Add(time.Duration(i)*time.Minute))
	}
	for _, last := range []float64{0, 1.1102230246251565e-16} {
		cum := []float64{0, 0.1, 0.3, 0.47, 0.47, 0.3, 0.1, last}
		if k, llr := changeScore(at, cum, 0.1, time.Minute, 30*time.Second); k >= 0 {
			t.Errorf("net %g: a change at %d (log-likelihood ratio %.1f)", last, k, llr)
		}
	}
}

// A first response the percent has charged (80 s of work, then 80 s of
// nothing) still counts while its session goes on.
func TestFirstResponseThePercentChargedCounts(t *testing.T) {
	sc := scenario{
		name: "codex first response", provider: Codex, used0: 30, reset: 3 * time.Hour,
		streams: []simStream{
			{session: "peer", phases: []phase{{-40 * time.Minute, 1500}}, every: 15 * time.Second},
			{session: "new", phases: []phase{{-80 * time.Second, 3000}}, every: 80 * time.Second},
		},
		source: SourceCodexLog, checks: minutesList(5),
	}
	r := sc.run()
	for _, d := range []time.Duration{10 * time.Second, 40 * time.Second, 60 * time.Second, 75 * time.Second} {
		p, snap, want := sc.evalAt(r, d)
		n := sessionByID(snap, "new")
		t.Logf("+%v: %.1f m/h (%s), true %.1f; the new session's row %.1f m/h %s", d, p.Burn.QuotaMinutesPerHour, p.Burn.Label(), want.mh, n.QuotaMinutesPerHour, n.RateKind)
		// Its share fades while it is silent, as a waiting session's
		// does (its tokens over the time since its turn began): by
		// +75 s a third low, where it counted nothing (67.5 m/h).
		if rel := math.Abs(p.Burn.QuotaMinutesPerHour-want.mh) / want.mh; rel > 0.35 {
			t.Errorf("+%v: %.1f m/h, true %.1f", d, p.Burn.QuotaMinutesPerHour, want.mh)
		}
		if !(n.QuotaMinutesPerHour > 0) {
			t.Errorf("+%v: the new session's row counts nothing", d)
		}
	}
}

// Codex rollouts that carry whole percents are read at their ticks, as a
// whole-percent source: read as a float, each tick was a burst (two driven
// sessions at about 115 m/h read from 0 to 311 m/h).
func TestCodexWholePercentTicks(t *testing.T) {
	reset := at(3 * time.Hour)
	r := runTurns(3, Codex, twoDrivenSessions(), 30*time.Minute)
	lo, hi := math.Inf(1), 0.0
	for d := time.Duration(0); d <= 30*time.Minute; d += 15 * time.Second {
		in := r.input(Codex, at(d), 30, reset)
		for i := range in.Samples {
			// The token count carries the percent: same line, whole.
			s := &in.Samples[i]
			s.Source, s.ObservedAt, s.UsedPercent = SourceCodexLog, s.ObservedAt.Add(-300*time.Millisecond), math.Floor(s.UsedPercent)
		}
		p := mustProvider(t, Compute(in, DefaultConfig()), Codex)
		mh, truth := p.Burn.QuotaMinutesPerHour, r.meanPace(d, 15*time.Minute)
		lo, hi = min(lo, mh), max(hi, mh)
		if math.Abs(mh-truth)/truth > 0.25 {
			t.Errorf("+%v: %.1f m/h (%s), the sessions' pace %.1f", d, mh, p.Burn.Label(), truth)
		}
	}
	t.Logf("burn from %.1f to %.1f m/h", lo, hi)
}

// A user who pauses 2 or 4 minutes between turns: the figure holds its pace
// through each pause and the turn after it. Its span started anywhere in a
// turn and held a pause fewer than turns, then faded over the pause (2 min:
// it moved by 19 % of the pace within a minute, 41 % with 4-minute pauses);
// then the first response after a 4-minute pause held the statusline's last
// velocity, measured over a pause fewer than turns (23 %; now 5 and 7 %).
func TestSteadyTurnsHoldTheirPace(t *testing.T) {
	reset := at(3 * time.Hour)
	for _, pause := range []time.Duration{2 * time.Minute, 4 * time.Minute} {
		ss := []turnSession{{id: "a", work: 1500, step: 12 * time.Second, think: [2]time.Duration{pause * 7 / 8, pause * 9 / 8}, responses: [2]int{5, 5}, start: -55 * time.Minute}}
		r := runTurns(9, Claude, ss, 40*time.Minute)
		pace := r.meanPace(40*time.Minute, 90*time.Minute)
		var mh []float64
		worst := 0.0
		for d := time.Duration(0); d <= 40*time.Minute; d += 15 * time.Second {
			p := mustProvider(t, Compute(r.input(Claude, at(d), 5, reset), DefaultConfig()), Claude)
			mh = append(mh, p.Burn.QuotaMinutesPerHour)
			if n := len(mh); n > 4 {
				jump := math.Abs(mh[n-1]-mh[n-5]) / pace
				worst = max(worst, jump)
				if jump > 0.12 {
					t.Errorf("%v pauses, +%v: %.1f m/h (%s), a minute before %.1f; the pace %.1f", pause, d, mh[n-1], p.Burn.Label(), mh[n-5], pace)
				}
			}
		}
		t.Logf("%v pauses: pace %.1f m/h; burn from %.1f to %.1f; the largest move within a minute %.0f %% of the pace", pause, pace, slices.Min(mh), slices.Max(mh), worst*100)
	}
}
