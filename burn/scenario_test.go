package burn

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The scenario simulator runs sessions with known piecewise token rates
// against an account whose used percent is their true cost over a capacity,
// sampled as a source would report it, and compares snapshots with the truth.

// A phase is a constant rate from an offset (relative to t0) on.
type phase struct {
	at   time.Duration
	rate float64 // weighted tokens per second
}

func rateAt(ph []phase, d time.Duration) float64 {
	r := 0.0
	for _, p := range ph {
		if p.at <= d {
			r = p.rate
		}
	}
	return r
}

// integral is ∫ rate over (a, b].
func integral(ph []phase, a, b time.Duration) float64 {
	sum := 0.0
	for i, p := range ph {
		end := b
		if i+1 < len(ph) {
			end = min(end, ph[i+1].at)
		}
		from := max(a, p.at)
		if end > from {
			sum += p.rate * (end - from).Seconds()
		}
	}
	return sum
}

// A simStream is one thread of a session: it writes a usage event about
// every `every` (jittered), carrying the tokens burnt since its last one.
type simStream struct {
	session, agent string
	phases         []phase
	every          time.Duration
	// pauses is the share of gaps that are a tool run or a person
	// thinking: 30–70 s with no usage event, paid for by the next one
	// (the session stays present: tools write lines meanwhile).
	pauses float64
	// noise spreads each response's tokens around the rate (lognormal,
	// this sigma): responses differ in size, the rate is their mean.
	noise float64
	// away: a phase at rate 0 is the user away, so the response before
	// it ended its turn (else it is a tool run: a build, a test suite).
	away bool
}

type scenario struct {
	name     string
	provider Provider
	used0    float64 // percent used at t0
	reset    time.Duration
	streams  []simStream
	remote   []phase // burn no local log shows
	source   Source
	poll     time.Duration // 0: one sample after each event (statusline, codex-log)
	pollEnd  time.Duration // when polling stops (an endpoint throttled): 0 never
	round    bool          // the source rounds rather than floors
	checks   []time.Duration
	cfg      func(*Config)

	// noisy: the sessions' responses vary so much that the burn actually
	// realized over the last 15 minutes (what any estimator can see) is
	// off their mean rate by up to ~20 %; run-out and m/h are then held to
	// the realized burn, and their distance to the mean rate is logged.
	noisy bool
	// change is when the pace changed: until the 15-minute horizons have
	// passed it, a check asserts only that the figures are between the
	// truths at the old and the new pace (the horizons blend the two).
	change time.Duration
	// rollover, when nonzero, is when the previous window instance reset:
	// samples before it carry that reset and the percent the old instance
	// had reached (used0 plus the burn so far); the new instance starts at 0.
	rollover time.Duration
	// free: the check only measures (the change set's goals are over the
	// whole set, not per check).
	free bool

	// Tolerances, defended in the table.
	runoutMin, runoutShare float64 // run-out off by at most max(runoutMin, runoutShare × minutes to the true run-out)
	sharePoints            float64 // each session's share of the burn, in points
	mhShare                float64 // provider m/h relative error
}

type simRun struct {
	events  []Event
	samples []Sample
	charges []charge // local cost by event time, for the truth
}

type charge struct {
	at     time.Time
	tokens float64
}

func (sc scenario) run() simRun {
	rng := rand.New(rand.NewPCG(1, uint64(len(sc.name))))
	end := slices.Max(sc.checks)
	var r simRun
	for _, st := range sc.streams {
		start := st.phases[0].at
		prev := start
		last := -1 // this stream's newest event in r.events
		for d := start + st.every; d <= end; {
			tokens := integral(st.phases, prev, d)
			if st.noise > 0 {
				tokens *= math.Exp(st.noise*rng.NormFloat64() - st.noise*st.noise/2)
			}
			e := use(sc.provider, st.session, at(d), tokens)
			e.Agent, e.TurnStart = st.agent, at(prev)
			if tokens > 0 {
				r.events = append(r.events, e)
				r.charges = append(r.charges, charge{at(d), tokens})
				last = len(r.events) - 1
			} else if st.away && last >= 0 {
				r.events[last].EndsTurn = true
			}
			prev = d
			if rng.Float64() < st.pauses {
				d += time.Duration((30 + 40*rng.Float64()) * float64(time.Second))
			} else {
				d += time.Duration(float64(st.every) * (0.6 + 0.8*rng.Float64()))
			}
		}
	}
	slices.SortFunc(r.charges, func(a, b charge) int { return a.at.Compare(b.at) })
	reset := at(sc.reset)
	sample := func(t time.Time) {
		q := reported(sc.usedAt(r, t), sc.source, sc.round)
		rs := reset
		if sc.rollover != 0 && t.Before(at(sc.rollover)) {
			rs = at(sc.rollover)
		}
		r.samples = append(r.samples, smp(sc.provider, 300, q, rs, t, sc.source))
	}
	if sc.poll > 0 {
		for d := -time.Hour; d <= end && (sc.pollEnd == 0 || d <= sc.pollEnd); d += sc.poll {
			sample(at(d))
		}
	} else {
		for _, c := range r.charges {
			sample(c.at.Add(300 * time.Millisecond))
		}
	}
	return r
}

// usedAt is the true used percent at t.
func (sc scenario) usedAt(r simRun, t time.Time) float64 {
	from, base := -24*time.Hour, sc.used0
	if sc.rollover != 0 && !t.Before(at(sc.rollover)) {
		from, base = sc.rollover, 0
	}
	tokens := integral(sc.remote, from, t.Sub(t0))
	for _, c := range r.charges {
		if c.at.After(at(from)) && !c.at.After(t) {
			tokens += c.tokens
		}
	}
	return base + tokens/capacity*100
}

// activity is each session's newest line at now: a session whose every
// thread has stopped for good ended its turn with its last response (Claude
// end_turn, Codex task_complete), as a real one does.
func (sc scenario) activity(r simRun, now time.Time) []Activity {
	last := map[string]time.Time{}
	final := map[string]time.Time{}
	for _, e := range r.events {
		final[e.Session] = maxTime(final[e.Session], e.At)
		if !e.At.After(now) {
			last[e.Session] = maxTime(last[e.Session], e.At)
		}
	}
	stopped := map[string]bool{}
	for _, st := range sc.streams {
		if _, ok := stopped[st.session]; !ok {
			stopped[st.session] = true
		}
		stopped[st.session] = stopped[st.session] && st.phases[len(st.phases)-1].rate == 0
	}
	var out []Activity
	for id, t := range last {
		out = append(out, Activity{Provider: sc.provider, Session: id, At: t, TurnEnded: stopped[id] && !final[id].After(now)})
	}
	slices.SortFunc(out, func(a, b Activity) int { return cmp.Compare(a.Session, b.Session) })
	return out
}

// input is what runway reads of a run at now: the events (extra after the
// run's) and samples up to now.
func (sc scenario) input(r simRun, now time.Time, extra ...Event) Input {
	in := Input{Now: now, Activity: sc.activity(r, now), Samples: observedBy(r.samples, now)}
	for _, e := range append(slices.Clone(r.events), extra...) {
		if !e.At.After(now) {
			in.Events = append(in.Events, e)
		}
	}
	return in
}

// truth is what a perfect model says at d: the burn at the current true
// rates and where it leads, and each session's share of it.
type truth struct {
	mh     float64
	runout time.Time // the reset when the window lasts
	share  map[string]float64
}

func (sc scenario) truth(r simRun, d time.Duration) truth { return sc.truthAtPace(r, d, d) }

// truthAtPace is the truth at d were the rates still those of pace.
func (sc scenario) truthAtPace(r simRun, d, pace time.Duration) truth {
	total := rateAt(sc.remote, pace)
	share := map[string]float64{}
	for _, st := range sc.streams {
		x := rateAt(st.phases, pace)
		total += x
		share[st.session] += x
	}
	for id := range share {
		share[id] /= total
	}
	pps := total / capacity * 100
	return truth{mh: quotaMinutesPerHour(pps, 300), runout: sc.runoutAt(r, at(d), pps), share: share}
}

// runoutAt is when the window truly runs dry at pps from now: the reset when it lasts.
func (sc scenario) runoutAt(r simRun, now time.Time, pps float64) time.Time {
	reset := at(sc.reset)
	if left := 100 - sc.usedAt(r, now); pps > 0 && left/pps < reset.Sub(now).Seconds() {
		return now.Add(sec(left / pps))
	}
	return reset
}

// realized is the truth at d by the burn actually charged over the last
// horizon: the best any trailing estimator can know.
func (sc scenario) realized(r simRun, d, horizon time.Duration) truth {
	now := at(d)
	tokens := integral(sc.remote, d-horizon, d)
	for _, c := range r.charges {
		if c.at.After(now.Add(-horizon)) && !c.at.After(now) {
			tokens += c.tokens
		}
	}
	pps := tokens / horizon.Seconds() / capacity * 100
	want := sc.truth(r, d)
	want.runout, want.mh = sc.runoutAt(r, now, pps), quotaMinutesPerHour(pps, 300)
	return want
}

// scenarioErrors is what one scenario measured, worst over its checks.
type scenarioErrors struct {
	runoutMin, sharePoints, mhRel float64
	evals                         []evaluation
}

func (w *scenarioErrors) add(runoutOff, shareOff, mhRel float64) {
	w.runoutMin = max(w.runoutMin, runoutOff)
	w.sharePoints = max(w.sharePoints, shareOff)
	w.mhRel = max(w.mhRel, mhRel)
}

// An evaluation is one check of a scenario against its truth.
type evaluation struct {
	after  time.Duration // since the change of pace
	mhRel  float64       // provider burn, relative error
	runout float64       // minutes; NaN when neither truth nor runway runs out before the reset
	share  float64       // the largest session share error, in points
	marker string        // Burn.Marker: "~" when the figure says it is an estimate or settling
	label  string        // Burn.Label
	// failOpen: Gate said the window lasts while, in truth, it runs out
	// more than 10 minutes before its reset (a nearer one is within any error).
	failOpen bool

	runoutOff float64   // minutes, whether or not either runs out
	got       time.Time // runway's run-out, the reset when it lasts
	shares    []string  // each session's share, runway's and the truth's
	gate      Verdict
}

// evaluate compares p of snapshot s at d with the truth.
func (sc scenario) evaluate(s Snapshot, p ProviderStatus, want truth, d time.Duration) evaluation {
	got := at(sc.reset)
	if p.RunoutAt != nil {
		got = *p.RunoutAt
	}
	ev := evaluation{after: -1, mhRel: math.Abs(p.Burn.QuotaMinutesPerHour-want.mh) / want.mh, runout: math.NaN(),
		marker: p.Burn.Marker(), label: p.Burn.Label(), runoutOff: math.Abs(got.Sub(want.runout).Minutes()), got: got}
	for id, w := range want.share {
		g := 0.0
		if x := sessionByID(s, id); x != nil && p.Burn.QuotaMinutesPerHour > 0 {
			g = x.QuotaMinutesPerHour / p.Burn.QuotaMinutesPerHour
		}
		ev.share = max(ev.share, math.Abs(g-w)*100)
		ev.shares = append(ev.shares, fmt.Sprintf("%s %.0f%%/%.0f%%", id, g*100, w*100))
	}
	if el := p.ElsewhereQuotaMinutesPerHour; el > 0 {
		ev.shares = append(ev.shares, fmt.Sprintf("elsewhere %.0f%%", el/p.Burn.QuotaMinutesPerHour*100))
	}
	slices.Sort(ev.shares)
	ev.gate, _ = Gate(s)
	ev.failOpen = ev.gate == Lasts && want.runout.Before(at(sc.reset).Add(-10*time.Minute))
	if p.RunoutAt != nil || want.runout.Before(at(sc.reset)) {
		ev.runout = ev.runoutOff
	}
	if sc.free {
		ev.after = d - sc.change
	}
	return ev
}

func (sc scenario) check(t *testing.T) scenarioErrors {
	cfg := DefaultConfig()
	if sc.cfg != nil {
		sc.cfg(&cfg)
	}
	r := sc.run()
	var worst scenarioErrors
	for _, d := range sc.checks {
		now := at(d)
		s := Compute(sc.input(r, now), cfg)
		want := sc.truth(r, d)
		if sc.noisy {
			mean := want
			want = sc.realized(r, d, cfg.VelocityHorizon)
			t.Logf("%-28s +%-6v (at the sessions' mean rate: %.1f m/h, run-out %s)", sc.name, d, mean.mh, mean.runout.Format("15:04:05"))
		}
		p := s.Provider(sc.provider)
		if p == nil || p.Window == nil {
			t.Fatalf("%v: no %s window", d, sc.provider)
		}
		ev := sc.evaluate(s, *p, want, d)
		worst.evals = append(worst.evals, ev)
		t.Logf("%-28s +%-6v m/h %6.1f (true %6.1f, %-10s) run-out %s (true %s) off %4.1f min; shares %v; gate %d",
			sc.name, d, p.Burn.QuotaMinutesPerHour, want.mh, p.Burn.Label(),
			ev.got.Format("15:04:05"), want.runout.Format("15:04:05"), ev.runoutOff, ev.shares, ev.gate)
		if sc.free {
			// Not held to the goals, but its worst line says what it got.
			worst.add(ev.runoutOff, ev.share, ev.mhRel)
			continue
		}
		toRunout := want.runout.Sub(now).Minutes()
		if sc.change != 0 && d < sc.change+cfg.VelocityHorizon {
			old := sc.truthAtPace(r, d, sc.change-time.Second)
			between := func(x, a, b float64) bool { return x >= min(a, b)*0.95 && x <= max(a, b)*1.05 }
			if !between(p.Burn.QuotaMinutesPerHour, old.mh, want.mh) ||
				!between(ev.got.Sub(now).Minutes(), old.runout.Sub(now).Minutes(), toRunout) {
				t.Errorf("%s at +%v: catching up, figures not between the old pace (%.1f m/h, run-out %s) and the new",
					sc.name, d, old.mh, old.runout.Format("15:04:05"))
			}
			t.Logf("%-28s (catching up: the old pace said %.1f m/h, run-out %s)", "", old.mh, old.runout.Format("15:04:05"))
			continue
		}
		if lim := max(sc.runoutMin, sc.runoutShare*toRunout); ev.runoutOff > lim {
			t.Errorf("%s at +%v: run-out off by %.1f min, tolerance %.1f", sc.name, d, ev.runoutOff, lim)
		}
		if ev.share > sc.sharePoints {
			t.Errorf("%s at +%v: a share off by %.1f points, tolerance %.1f", sc.name, d, ev.share, sc.sharePoints)
		}
		if ev.mhRel > sc.mhShare {
			t.Errorf("%s at +%v: m/h off by %.0f %%, tolerance %.0f %%", sc.name, d, ev.mhRel*100, sc.mhShare*100)
		}
		worst.add(ev.runoutOff, ev.share, ev.mhRel)
	}
	t.Logf("%-28s worst: run-out off %.1f min, share off %.1f points, m/h off %.1f %%",
		sc.name, worst.runoutMin, worst.sharePoints, worst.mhRel*100)
	return worst
}

func minutesList(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Minute
	}
	return out
}

// Capacity 24 M weighted tokens per 100 %: 2,000 tokens/s is 90 m/h.
const capacity = 24e6

func steadyPair(id1, id2 string, r1, r2 float64, every time.Duration) []simStream {
	return []simStream{
		{session: id1, phases: []phase{{-40 * time.Minute, r1}}, every: every},
		{session: id2, phases: []phase{{-40 * time.Minute, r2}}, every: every * 3 / 2},
	}
}

// burstyPair is steadyPair as sessions are: responses of uneven size, tool
// runs and pauses of 30–70 s between some of them.
func burstyPair(r1, r2 float64) []simStream {
	return []simStream{
		{session: "big", phases: []phase{{-40 * time.Minute, r1}}, every: 12 * time.Second, pauses: 0.15, noise: 0.5},
		{session: "small", phases: []phase{{-40 * time.Minute, r2}}, every: 18 * time.Second, pauses: 0.15, noise: 0.5},
	}
}

// scenarios is the steady set, one table: the tolerances are defended here.
func scenarios() []scenario {
	steadyChecks := minutesList(0, 10, 20, 40)
	return []scenario{
		{
			name: "claude statusline 0.1 %", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 12*time.Second), source: SourceStatusline,
			checks: steadyChecks, runoutMin: 3, runoutShare: 0.05, sharePoints: 5, mhShare: 0.06,
		},
		{
			name: "claude oauth whole %, 60 s", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 12*time.Second), source: SourceOAuth, poll: time.Minute,
			checks: steadyChecks, runoutMin: 5, runoutShare: 0.08, sharePoints: 5, mhShare: 0.10,
		},
		{
			name: "claude oauth whole % rounded", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 12*time.Second), source: SourceOAuth, poll: time.Minute, round: true,
			checks: steadyChecks, runoutMin: 5, runoutShare: 0.08, sharePoints: 5, mhShare: 0.10,
		},
		{
			name: "codex rollout float", provider: Codex, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 15*time.Second), source: SourceCodexLog,
			checks: steadyChecks, runoutMin: 3, runoutShare: 0.05, sharePoints: 5, mhShare: 0.06,
		},
		{
			name: "codex app-server whole %, 60 s", provider: Codex, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 15*time.Second), source: SourceCodexRPC, poll: time.Minute,
			checks: steadyChecks, runoutMin: 5, runoutShare: 0.08, sharePoints: 5, mhShare: 0.10,
		},
		{
			// A session in a pause is waiting; it keeps its share
			// (Config.WaitingShare).
			name: "bursty sessions, statusline", provider: Claude, used0: 30, reset: 3 * time.Hour, streams: burstyPair(1500, 500),
			source: SourceStatusline, checks: minutesList(0, 3, 7, 10, 14, 20, 25, 40), noisy: true,
			runoutMin: 3, runoutShare: 0.05, sharePoints: 5, mhShare: 0.06,
		},
		{
			name: "bursty sessions, oauth whole %", provider: Claude, used0: 30, reset: 3 * time.Hour, streams: burstyPair(1500, 500),
			source: SourceOAuth, poll: time.Minute, checks: minutesList(0, 3, 7, 10, 14, 20, 25, 40), noisy: true,
			runoutMin: 5, runoutShare: 0.08, sharePoints: 5, mhShare: 0.10,
		},
		{
			// The usage endpoint answers 429 from t0 on: no new sample.
			name: "throttled endpoint", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 12*time.Second), source: SourceOAuth, poll: time.Minute,
			pollEnd: -time.Second, checks: minutesList(2, 5, 10, 20), runoutMin: 5, runoutShare: 0.08, sharePoints: 5, mhShare: 0.10,
		},
		{
			name: "slow burn, lasts to reset", provider: Claude, used0: 20, reset: 2 * time.Hour,
			streams: steadyPair("a", "b", 300, 200, 10*time.Second), source: SourceStatusline,
			checks: steadyChecks, runoutMin: 1, sharePoints: 5, mhShare: 0.15,
		},
		{
			name: "subagents", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: []simStream{
				{session: "lead", phases: []phase{{-40 * time.Minute, 600}}, every: 14 * time.Second},
				{session: "lead", agent: "a1", phases: []phase{{-30 * time.Minute, 900}}, every: 8 * time.Second},
				{session: "lead", agent: "a2", phases: []phase{{-20 * time.Minute, 700}}, every: 11 * time.Second},
				{session: "solo", phases: []phase{{-40 * time.Minute, 800}}, every: 13 * time.Second},
			},
			source: SourceStatusline, checks: steadyChecks, runoutMin: 3, runoutShare: 0.05, sharePoints: 5, mhShare: 0.06,
		},
		{
			// A session goes from 1,000 to 2,500 tokens/s at +10 min: the
			// figures catch up within the 15-minute horizons.
			name: "pace change", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: []simStream{
				{session: "big", phases: []phase{{-40 * time.Minute, 1000}, {10 * time.Minute, 2500}}, every: 12 * time.Second},
				{session: "small", phases: []phase{{-40 * time.Minute, 500}}, every: 18 * time.Second},
			},
			source: SourceStatusline, change: 10 * time.Minute, checks: minutesList(12, 15, 20, 26, 30, 40), runoutMin: 3, runoutShare: 0.05, sharePoints: 5, mhShare: 0.06,
		},
		{
			// The account burns more than the local sessions: without a
			// calibration the split is proportional, so local shares read
			// high by the unseen part.
			name: "unseen burn elsewhere", provider: Claude, used0: 20, reset: 3 * time.Hour,
			streams: steadyPair("big", "small", 1500, 500, 12*time.Second), remote: []phase{{-40 * time.Minute, 1000}},
			source: SourceStatusline, checks: steadyChecks, runoutMin: 3, runoutShare: 0.05, sharePoints: 35, mhShare: 0.06,
		},
		{
			name: "only elsewhere", provider: Claude, used0: 20, reset: 3 * time.Hour,
			remote: []phase{{-40 * time.Minute, 2000}}, source: SourceOAuth, poll: time.Minute,
			checks: steadyChecks, runoutMin: 5, runoutShare: 0.08, sharePoints: 0, mhShare: 0.10,
		},
		{
			// Heavy burn in the last minutes of the window (270 m/h, 8 %
			// left at t0): a run-out just before the reset, no explosion.
			name: "near the reset", provider: Claude, used0: 70, reset: 10 * time.Minute,
			streams: []simStream{
				{session: "big", phases: []phase{{-15 * time.Minute, 4500}}, every: 12 * time.Second},
				{session: "small", phases: []phase{{-15 * time.Minute, 1500}}, every: 18 * time.Second},
			},
			source: SourceStatusline,
			checks: minutesList(0, 2, 4), runoutMin: 1, sharePoints: 5, mhShare: 0.06,
		},
	}
}

func TestScenario(t *testing.T) {
	var all []evaluation
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			res := sc.check(t)
			if sc.change == 0 {
				all = append(all, res.evals...)
			}
		})
	}
	sum := summarize(all)
	t.Log("steady set:\n" + strings.Join(sum.lines(), "\n"))
	// No worse than before the nowcast: medians 0.1 %, 0.4 min, 0 points.
	if sum.burn.median > 1 || sum.runout.median > 2 || sum.share.median > 0.5 {
		t.Errorf("steady medians: burn %.1f %%, run-out %.1f min, share %.1f points", sum.burn.median, sum.runout.median, sum.share.median)
	}
}
