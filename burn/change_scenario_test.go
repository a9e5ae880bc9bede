package burn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The change set: scenarios whose pace changes at t0, evaluated 1, 2, 3, 5,
// 10 and 30 minutes after, each with a fine source (statusline 0.1 %, or a
// Codex rollout's float) and a coarse one (whole percent polled every 60 s).

var changeChecks = minutesList(1, 2, 3, 5, 10, 30)

// changeBase is one change of pace; variants gives it its sources.
type changeBase struct {
	name     string
	provider Provider
	used0    float64
	reset    time.Duration
	rollover time.Duration
	streams  []simStream
	remote   []phase
}

func (b changeBase) variants() []scenario {
	fine, coarse := SourceStatusline, SourceOAuth
	if b.provider == Codex {
		fine, coarse = SourceCodexLog, SourceCodexRPC
	}
	sc := scenario{
		provider: b.provider, used0: b.used0, reset: b.reset, rollover: b.rollover,
		streams: b.streams, remote: b.remote, checks: changeChecks, free: true,
	}
	f, c := sc, sc
	f.name, f.source = b.name+", "+string(fine), fine
	if len(b.streams) == 0 {
		// A statusline fed from a session on another machine: Claude
		// Code refreshes it while that session works.
		f.poll = 30 * time.Second
	}
	c.name, c.source, c.poll = b.name+", "+string(coarse), coarse, time.Minute
	return []scenario{f, c}
}

func changeScenarios() []scenario {
	before := -40 * time.Minute
	bases := []changeBase{
		{
			// A heavy session starts a burst: 36 → 220 m/h.
			name: "burst start", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: []simStream{
				{session: "big", phases: []phase{{before, 300}, {0, 4400}}, every: 12 * time.Second},
				{session: "small", phases: []phase{{before, 500}}, every: 18 * time.Second},
			},
		},
		{
			// The heavier of two sessions stops: 171 → 58 m/h.
			name: "heavy session stops", provider: Claude, used0: 40, reset: 4 * time.Hour,
			streams: []simStream{
				{session: "big", phases: []phase{{before, 2500}, {0, 0}}, every: 12 * time.Second},
				{session: "small", phases: []phase{{before, 1300}}, every: 18 * time.Second},
			},
		},
		{
			// The same two minutes after the window rolled over.
			name: "stop after rollover", provider: Claude, used0: 85, reset: 5*time.Hour - 2*time.Minute, rollover: -2 * time.Minute,
			streams: []simStream{
				{session: "big", phases: []phase{{before, 3000}, {0, 0}}, every: 12 * time.Second},
				{session: "small", phases: []phase{{before, 1000}}, every: 18 * time.Second},
			},
		},
		{
			// The heavier session's user comes back after 8 minutes away
			// (its turn had ended): 58 → 171 m/h. With only the 30-minute
			// burst gap its first responses were spread over the pause:
			// 35 % low for ten minutes, the run-out 26 minutes late.
			name: "session resumes after a pause", provider: Claude, used0: 20, reset: 4 * time.Hour,
			streams: []simStream{
				{session: "big", phases: []phase{{before, 2500}, {-8 * time.Minute, 0}, {0, 2500}}, every: 12 * time.Second, away: true},
				{session: "small", phases: []phase{{before, 1300}}, every: 18 * time.Second},
			},
		},
		{
			// A Codex session slows down while another one starts.
			name: "slowdown, another starts", provider: Codex, used0: 40, reset: 3 * time.Hour,
			streams: []simStream{
				{session: "a", phases: []phase{{before, 3000}, {0, 800}}, every: 15 * time.Second},
				{session: "b", phases: []phase{{0, 1500}}, every: 15 * time.Second},
			},
		},
		{
			// No local log: only the percent says the pace went 36 → 158 m/h.
			name: "percent only", provider: Claude, used0: 20, reset: 3 * time.Hour,
			remote: []phase{{before, 800}, {0, 3500}},
		},
		{
			name: "elsewhere starts", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: []simStream{{session: "big", phases: []phase{{before, 1500}}, every: 12 * time.Second}},
			remote:  []phase{{before, 0}, {0, 2000}},
		},
		{
			name: "elsewhere stops", provider: Claude, used0: 30, reset: 3 * time.Hour,
			streams: []simStream{{session: "big", phases: []phase{{before, 1500}}, every: 12 * time.Second}},
			remote:  []phase{{before, 2000}, {0, 0}},
		},
	}
	var out []scenario
	for _, b := range bases {
		out = append(out, b.variants()...)
	}
	return out
}

// errorStats is the median, p90 and max of a set of errors.
type errorStats struct {
	n                int
	median, p90, max float64
}

func statsOf(xs []float64) errorStats {
	xs = slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(xs) == 0 {
		return errorStats{}
	}
	slices.Sort(xs)
	rank := func(q float64) float64 { return xs[max(int(math.Ceil(q*float64(len(xs))))-1, 0)] }
	return errorStats{n: len(xs), median: rank(0.5), p90: rank(0.9), max: xs[len(xs)-1]}
}

func (e errorStats) String() string {
	return fmt.Sprintf("median %5.1f  p90 %5.1f  max %5.1f  (n=%d)", e.median, e.p90, e.max, e.n)
}

// setSummary is what a scenario set measured, over all its evaluations.
type setSummary struct {
	burn, runout, share errorStats
	early, earlyOK      int // evaluations within 2 min of the change, and those within 15 % or marked "~"
	// lateRunout: the run-out errors from 2 min after the change on.
	lateRunout errorStats
	// late: evaluations from 2 min after the change on that are off by
	// more than 15 %; lateMarked: those of them marked "~".
	late, lateMarked int
	// failOpen: evaluations where --check said "lasts" of a window that
	// runs out; lateFailOpen: those from 2 min after the change on.
	failOpen, lateFailOpen int
}

func summarize(evals []evaluation) setSummary {
	var burn, runout, share, lateRunout []float64
	var s setSummary
	for _, e := range evals {
		burn = append(burn, e.mhRel*100)
		runout = append(runout, e.runout)
		share = append(share, e.share)
		if e.after > 0 && e.after <= 2*time.Minute {
			s.early++
			// The goal: within 15 %, or marked. A session
			// that ended its turn keeps its pace through its user's
			// usual pause, so a stop reads as a pause until then,
			// marked settling past half of it.
			if e.mhRel <= 0.15 || e.marker == "~" {
				s.earlyOK++
			}
		}
		if e.after < 0 || e.after >= 2*time.Minute {
			lateRunout = append(lateRunout, e.runout)
		}
		if e.after >= 2*time.Minute && e.mhRel > 0.15 {
			s.late++
			if e.marker == "~" {
				s.lateMarked++
			}
		}
		if e.failOpen {
			s.failOpen++
			if e.after >= 2*time.Minute {
				s.lateFailOpen++
			}
		}
	}
	s.burn, s.runout, s.share = statsOf(burn), statsOf(runout), statsOf(share)
	s.lateRunout = statsOf(lateRunout)
	return s
}

func (s setSummary) lines() []string {
	out := []string{
		"provider burn error %     " + s.burn.String(),
		"run-out error, min        " + s.runout.String(),
		"share error, points       " + s.share.String(),
	}
	if s.early > 0 {
		out = append(out, fmt.Sprintf("within 2 min: burn within 15 %% or marked ~ in %d of %d", s.earlyOK, s.early))
	}
	return out
}

// TestScenarioChange prints the change set's table and holds the set to
// the goals of the issue.
func TestScenarioChange(t *testing.T) {
	var all, seen, ticks []evaluation
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-42s %s  %7s %6s  %s\n", "scenario", "burn err % at +1 +2 +3 +5 +10 +30 min", "run-out", "share", "methods")
	for _, sc := range changeScenarios() {
		var res scenarioErrors
		t.Run(sc.name, func(t *testing.T) {
			res = sc.check(t)
			checkOneChange(t, sc, res.evals)
		})
		all = append(all, res.evals...)
		if blind(sc) {
			ticks = append(ticks, res.evals...)
		} else {
			seen = append(seen, res.evals...)
		}
		var cells, methods []string
		var runouts, shares []float64
		for _, e := range res.evals {
			cells = append(cells, fmt.Sprintf("%4.0f%1s", e.mhRel*100, e.marker))
			if m := e.label; !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
			runouts, shares = append(runouts, e.runout), append(shares, e.share)
		}
		fmt.Fprintf(&table, "%-42s %s  %7.1f %6.1f  %s\n", sc.name, strings.Join(cells, ""),
			statsOf(runouts).max, statsOf(shares).max, strings.Join(methods, ","))
	}
	sum, sub, tk := summarize(all), summarize(seen), summarize(ticks)
	table.WriteString("(~: the figure is marked an estimate or settling)\n")
	table.WriteString("change visible in the data within 2 min (a local log or a fine source), held to the goals:\n" + strings.Join(sub.lines(), "\n"))
	table.WriteString("\nonly whole-percent ticks show it, held to honesty (see blind):\n" + strings.Join(tk.lines(), "\n"))
	table.WriteString(fmt.Sprintf("\nfrom +2 min, off by more than 15 %%: %d, of which marked ~: %d", tk.late, tk.lateMarked))
	table.WriteString(fmt.Sprintf("\n--check said \"lasts\" of a window that runs out: %d of %d checks, %d of them from +2 min", sum.failOpen, len(all), sum.lateFailOpen))
	table.WriteString("\nall scenarios:\n" + strings.Join(sum.lines(), "\n"))
	t.Log(table.String())
	checkChangeGoals(t, sum, sub)
	// From +2 min a tick proves the figure behind: the gate must not say
	// "go" on it (Burn.Behind). At +1 min nothing can tell (see blind).
	if sum.lateFailOpen > 0 {
		t.Errorf("--check said a window lasts that runs out, %d times from +2 min after a change", sum.lateFailOpen)
	}
	if tk.lateMarked < tk.late {
		t.Errorf("whole-tick changes: %d of %d figures off by more than 15 %% from +2 min on are not marked ~", tk.late-tk.lateMarked, tk.late)
	}
}

// checkOneChange holds single change scenarios to goals of their own; evals
// are at changeChecks (+1, 2, 3, 5, 10, 30 min).
func checkOneChange(t *testing.T, sc scenario, evals []evaluation) {
	t.Helper()
	// A fine source shows a change at +1 min: a percent-only one (36 → 158
	// m/h, a statusline polled every 30 s) measured from the first reading
	// after it, and burn elsewhere starting, the part no local token explains
	// measured again from the change.
	switch e := evals[0]; sc.name {
	case "percent only, statusline":
		if e.got.Equal(at(sc.reset)) || e.runoutOff > 10 {
			t.Errorf("+1 min: run-out %s off by %.1f min, goal 10", e.got.Format("15:04:05"), e.runoutOff)
		}
		fallthrough
	case "elsewhere starts, statusline":
		if e.mhRel > 0.15 {
			t.Errorf("+1 min: burn off %.0f %%, goal 15 %%", e.mhRel*100)
		}
	}
	// Burn elsewhere starts (0 → 90 m/h next to a local 67 m/h): the ratio of
	// percent to local tokens is learned before it, so it does not absorb it.
	if strings.HasPrefix(sc.name, "elsewhere starts") {
		for _, e := range evals[4:] {
			if e.share > 5 {
				t.Errorf("+%v: the local share off by %.1f points, goal 5", e.after, e.share)
			}
		}
	}
}

// blind: the change is seen only in whole-percent ticks polled once a
// minute: the first minutes cannot tell the new pace (docs/burn-model.md,
// "Changes of pace"), so these are held to honesty, not to the 2-minute
// goal: from +2 min a figure more than 15 % off must be marked "~".
func blind(sc scenario) bool {
	if sc.source.resolution() < 1 {
		return false
	}
	for _, st := range sc.streams {
		if len(st.phases) > 1 || st.phases[0].at >= 0 {
			return false // a session's own change: its log shows it
		}
	}
	return true
}

// checkChangeGoals holds the change set to the goals of issue 10 where a
// local log or a fine source sees the change, and to a share error p90 of 5
// points everywhere.
func checkChangeGoals(t *testing.T, all, seen setSummary) {
	t.Helper()
	if seen.burn.p90 > 10 {
		t.Errorf("provider burn error p90 %.1f %%, goal 10 %%", seen.burn.p90)
	}
	if seen.runout.p90 > 10 {
		t.Errorf("run-out error p90 %.1f min, goal 10 min", seen.runout.p90)
	}
	// From 2 min after the change (the goal): until then a stop
	// right after a turn's end reads as a pause, marked settling.
	if seen.lateRunout.max > 30 {
		t.Errorf("run-out error max from +2 min %.1f min, goal 30 min", seen.lateRunout.max)
	}
	if all.share.p90 > 5 {
		t.Errorf("share error p90 %.1f points, goal 5", all.share.p90)
	}
	if seen.earlyOK*10 < seen.early*9 {
		t.Errorf("within 2 min of a change the burn was within 15 %% or marked in %d of %d", seen.earlyOK, seen.early)
	}
}

// evalAt computes the snapshot of a scenario's run at d and its truth there.
func (sc scenario) evalAt(r simRun, d time.Duration) (ProviderStatus, Snapshot, truth) {
	snap := Compute(sc.input(r, at(d)), DefaultConfig())
	p := snap.Provider(sc.provider)
	if p == nil {
		return ProviderStatus{}, snap, sc.truth(r, d)
	}
	return *p, snap, sc.truth(r, d)
}

// countUnit counts a series as regular as rounding in half grains, and a
// lumpy one (responses of uneven size) in whole ones, as before: the finer
// unit never applies where usage itself is noisier than counting.
func TestCountUnit(t *testing.T) {
	var at []time.Time
	var smooth, lumpy []float64
	rng := rand.New(rand.NewPCG(7, 7))
	pace := mhPPS(90, 300) // 0.3 % a minute
	sum := 0.0
	for i := range 60 {
		d := time.Duration(i) * 30 * time.Second
		at = append(at, t0.Add(d))
		smooth = append(smooth, quantize(pace*d.Seconds(), SourceStatusline))
		if i > 0 {
			// One response in three carries the burn of three intervals.
			if rng.IntN(3) == 0 {
				sum += 3 * pace * 30 * math.Exp(0.7*rng.NormFloat64()-0.245)
			}
		}
		lumpy = append(lumpy, quantize(sum, SourceStatusline))
	}
	if u := countUnit(at, smooth, 0.1, 0.1); u != 0.05 {
		t.Errorf("smooth 0.1 %% series: unit %v, want 0.05", u)
	}
	if u := countUnit(at, lumpy, 0.1, 0.1); u != 0.1 {
		t.Errorf("lumpy 0.1 %% series: unit %v, want 0.1", u)
	}
	ticks := make([]float64, len(smooth))
	for i, x := range smooth {
		ticks[i] = math.Floor(x)
	}
	if u := countUnit(at, ticks, 1, 1); u != 1 {
		t.Errorf("whole-percent series: unit %v, want 1", u)
	}
}

// TestGateBehindCriesNoWolf: steady windows that last on whole-percent
// sources are never "cannot tell" on Burn.Behind; slowing ones never behind.
func TestGateBehindCriesNoWolf(t *testing.T) {
	bursty := burstyPair(600, 300)
	var checks []time.Duration
	for m := range 41 {
		checks = append(checks, time.Duration(m)*time.Minute)
	}
	for _, sc := range []scenario{
		{name: "bursty, oauth", streams: bursty, source: SourceOAuth},
		{name: "bursty, oauth rounded", streams: bursty, source: SourceOAuth, round: true},
		{name: "bursty, codex-rpc", provider: Codex, streams: bursty, source: SourceCodexRPC},
		{name: "percent only, oauth", remote: []phase{{-40 * time.Minute, 900}}, source: SourceOAuth},
		{name: "bursty and elsewhere, oauth", streams: bursty, remote: []phase{{-40 * time.Minute, 300}}, source: SourceOAuth},
	} {
		if sc.provider == "" {
			sc.provider = Claude
		}
		sc.used0, sc.reset, sc.poll, sc.checks = 20, 3*time.Hour, time.Minute, checks
		r := sc.run()
		behind := 0
		for _, d := range checks {
			p, s, want := sc.evalAt(r, d)
			if !want.runout.Equal(at(sc.reset)) {
				t.Fatalf("%s: the truth runs out at +%v: not a lasting window", sc.name, d)
			}
			if v, why := Gate(s); v != Lasts {
				t.Errorf("%s at +%v: gate %d (%s), burn %.1f m/h (true %.1f)", sc.name, d, v, why, p.Burn.QuotaMinutesPerHour, want.mh)
			}
			if p.Burn.Behind {
				behind++
			}
		}
		t.Logf("%-28s behind at %d of %d checks", sc.name, behind, len(checks))
	}
	// A stop: the ticks from before it rose faster than the figure, which
	// (the span blending both paces) still says ~40 m/h; the ones since
	// show it too fast. That is a slowdown, not a burn behind (it read
	// "cannot tell" from +6 to +12 min before both were weighed).
	stops := []simStream{{session: "big", phases: []phase{{-40 * time.Minute, 1500}, {0, 0}}, every: 12 * time.Second, pauses: 0.15, noise: 0.5}}
	for _, sc := range []scenario{
		{name: "stops, oauth", streams: stops, source: SourceOAuth},
		{name: "stops, oauth rounded", streams: stops, source: SourceOAuth, round: true},
		{name: "percent only stops, oauth", remote: []phase{{-40 * time.Minute, 1500}, {0, 0}}, source: SourceOAuth},
		{name: "percent only slows, oauth", remote: []phase{{-40 * time.Minute, 2000}, {0, 500}}, source: SourceOAuth},
	} {
		sc.provider, sc.used0, sc.reset, sc.poll, sc.checks = Claude, 20, 3*time.Hour, time.Minute, checks
		r := sc.run()
		for _, d := range checks[3:] { // from +3 min: the ticks since have shown the stop
			if p, _, want := sc.evalAt(r, d); p.Window != nil && p.Window.Burn.Behind {
				t.Errorf("%s at +%v: behind, burn %.1f m/h (true %.1f)", sc.name, d, p.Burn.QuotaMinutesPerHour, want.mh)
			}
		}
	}
}
