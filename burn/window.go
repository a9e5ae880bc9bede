package burn

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// An instance is one occurrence of a quota window (docs/burn-model.md,
// "Window instances").
type instance struct {
	reset     time.Time
	estimated bool      // no sample said when it resets
	start     time.Time // when the window opened (estimated when the reset is)
	minutes   int
	samples   []Sample // by ObservedAt
}

// windowView is one window as the model sees it: the status a surface shows
// and the figures attribution and projection need.
type windowView struct {
	status   *WindowStatus // nil: no sample at all
	live     bool          // a sample of the current instance exists and it has not reset
	minutes  int
	start    time.Time
	reset    time.Time
	pps      float64   // burn in percent per second
	method   Method    //
	since    time.Time // start of the span the measured velocity covers
	until    time.Time // its end: the newest sample of its series
	source   Source    // the series it was measured on
	settling bool      // see velocity.settling
	blend    *velocity // see velocity.blend
	unc      float64   // the measured velocity's uncertainty, one step over its span
	usedNow  float64   // used percent now, what the projection starts from
	shown    Sample    // the sample the status shows
	samples  []Sample  // the current instance's
	previous []Sample  // the instance before, for the ratio just after a rollover
	hold     *velocity // the velocity a quiet source may keep (holdable)
	held     bool      // the burn is hold
	// The whole-percent ticks offTicks checks the figure against, and path:
	// how far the figure says the percent moved between two times (nil: pps).
	ticks     []step
	ticksLast time.Time
	tickSpan  time.Duration
	tickRes   float64
	path      func(from, to time.Time) float64
}

// cleanSamples keeps the samples CleanSample passes, classified by their
// length, and drops those dated more than the skew allowance after now.
func cleanSamples(in []Sample, now time.Time, cfg Config) (map[Provider]map[WindowClass][]Sample, int) {
	all := make([]Sample, 0, len(in))
	future := 0
	for _, s := range in {
		s, ok := CleanSample(s)
		if !ok {
			continue
		}
		if s.ObservedAt.Sub(now) > cfg.FutureSkew {
			future++
			continue
		}
		all = append(all, s)
	}
	// One sort: each provider's and class's samples are then a run of it.
	slices.SortFunc(all, func(a, b Sample) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Window, b.Window), a.ObservedAt.Compare(b.ObservedAt))
	})
	out := map[Provider]map[WindowClass][]Sample{}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Provider == all[i].Provider && all[j].Window == all[i].Window {
			j++
		}
		if out[all[i].Provider] == nil {
			out[all[i].Provider] = map[WindowClass][]Sample{}
		}
		out[all[i].Provider][all[i].Window] = all[i:j:j]
		i = j
	}
	return out, future
}

// instances groups one window class's samples by instance (docs/burn-model.md,
// "Window instances").
func instances(samples []Sample, jitter time.Duration) []instance {
	// Sorting by reset puts the unknown ones (zero) first.
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b Sample) int { return a.ResetsAt.Compare(b.ResetsAt) })
	k := slices.IndexFunc(sorted, func(s Sample) bool { return !s.ResetsAt.IsZero() })
	if k < 0 {
		k = len(sorted)
	}
	unknown, known := sorted[:k:k], sorted[k:]
	out := byReset(known, jitter)
	loose := joinObserved(out, unknown, jitter)
	return append(out, estimated(loose)...)
}

// byReset groups samples sorted by reset into the instances of their resets.
func byReset(known []Sample, jitter time.Duration) []instance {
	var out []instance
	for i := 0; i < len(known); {
		j := i + 1
		for j < len(known) && known[j].ResetsAt.Sub(known[j-1].ResetsAt) <= jitter {
			j++
		}
		out = append(out, instance{samples: known[i:j:j]}) // full: a join copies
		i = j
	}
	for i := range out {
		in := &out[i]
		byObserved(in.samples)
		newest := in.samples[len(in.samples)-1]
		in.reset, in.minutes = newest.ResetsAt, newest.WindowMinutes
		in.start = in.reset.Add(-minutes(in.minutes))
	}
	return out
}

// joinObserved adds each sample without a reset to the instance it was
// observed in, and returns those observed in none.
func joinObserved(out []instance, unknown []Sample, jitter time.Duration) []Sample {
	byObserved(unknown)
	var loose []Sample
	for _, s := range unknown {
		joined := false
		for i := range out {
			in := &out[i]
			if !s.ObservedAt.Before(in.start.Add(-jitter)) && s.ObservedAt.Before(in.reset.Add(jitter)) {
				in.samples = append(in.samples, s)
				joined = true
				break
			}
		}
		if !joined {
			loose = append(loose, s)
		}
	}
	for i := range out {
		byObserved(out[i].samples)
	}
	return loose
}

// estimated groups samples of no known instance into instances of their own,
// a new one whenever the percent drops or the window's length has passed.
func estimated(loose []Sample) []instance {
	var out []instance
	var run []Sample
	flush := func() {
		if len(run) == 0 {
			return
		}
		first, newest := run[0], run[len(run)-1]
		w := minutes(newest.WindowMinutes)
		// The reset at the latest it can be, the start the middle of
		// where it can be: more remaining never reads as a faster burn.
		earliest := newest.ObservedAt.Add(-w + time.Second)
		start := earliest.Add(first.ObservedAt.Sub(earliest) / 2)
		out = append(out, instance{
			reset:     first.ObservedAt.Add(w),
			estimated: true,
			start:     start,
			minutes:   newest.WindowMinutes,
			samples:   run,
		})
		run = nil
	}
	for _, s := range loose {
		if len(run) > 0 {
			prev := run[len(run)-1]
			drop := prev.UsedPercent - s.UsedPercent
			if drop > max(prev.Source.resolution(), s.Source.resolution())+1e-9 ||
				s.ObservedAt.Sub(run[0].ObservedAt) >= minutes(s.WindowMinutes) {
				flush()
			}
		}
		run = append(run, s)
	}
	flush()
	return out
}

// view computes one window class of one provider.
func view(samples []Sample, now time.Time, cfg Config) windowView {
	ins := instances(samples, cfg.InstanceJitter)
	if len(ins) == 0 {
		return windowView{method: MethodNone}
	}
	cur, prev := ins[0], -1
	for _, in := range ins[1:] {
		if in.reset.After(cur.reset) {
			cur = in
		}
	}
	for i, in := range ins {
		if in.reset.Before(cur.reset) && (prev < 0 || in.reset.After(ins[prev].reset)) {
			prev = i
		}
	}
	if !cur.estimated {
		cur.samples = forward(cur.samples)
	}
	shown := freshest(cur.samples)
	w := cur.minutes
	st := &WindowStatus{
		Class:             ClassOf(w),
		Minutes:           w,
		UsedPercent:       shown.UsedPercent,
		ResetsAt:          timePtr(cur.reset),
		Source:            shown.Source,
		ObservedAt:        shown.ObservedAt,
		ResetsAtEstimated: cur.estimated,
		Burn:              Burn{Method: MethodNone},
	}
	// Velocity and calibration look back a bounded span: the cost does not
	// grow with the log.
	back := max(4*scaled(cfg.VelocityHorizon, w), scaled(cfg.CalibrationSpan, w)) + 10*time.Minute
	newest := cur.samples[len(cur.samples)-1].ObservedAt
	i, _ := slices.BinarySearchFunc(cur.samples, newest.Add(-back), func(s Sample, t time.Time) int { return s.ObservedAt.Compare(t) })
	v := windowView{status: st, minutes: w, start: cur.start, reset: cur.reset, method: MethodNone, shown: shown, samples: cur.samples[i:]}
	if prev >= 0 && now.Sub(ins[prev].reset) <= back {
		v.previous = ins[prev].samples
	}
	if !cur.reset.After(now) {
		// Over: whatever the sample said belongs to a window that is gone.
		st.Reset = true
		st.UsedPercent = 0
		st.State = NoData
		return v
	}
	v.live = true

	if vel, ok := bestVelocity(v.samples, now, w, cfg.VelocityFresh, cfg); ok {
		v.pps, v.method, v.since, v.until, v.unc, v.source = vel.pps, MethodMeasured, vel.from, vel.last.ObservedAt, vel.unc, vel.last.Source
		v.settling, v.blend = vel.settling, vel.blend
		v.usedNow = vel.usedAt(now)
		if res := vel.res; res >= 1 {
			series := seriesOf(bySource(v.samples)[v.source])
			v.ticks, v.ticksLast, v.tickRes = stepsOf(series, true), series[len(series)-1].ObservedAt, res
			v.tickSpan = scaled(cfg.VelocityHorizon, w)
		}
	} else {
		v.average(now, cfg)
	}
	v.finish(now, cfg)
	return v
}

// average is the burn without a fresh velocity (docs/burn-model.md,
// "Account burn"), and the velocity a quiet source may hold.
func (v *windowView) average(now time.Time, cfg Config) {
	elapsed := max(now.Sub(v.start), minutes(v.minutes)/30)
	v.pps, v.method = v.shown.UsedPercent/elapsed.Seconds(), MethodAverage
	v.usedNow = v.shown.UsedPercent
	if h, ok := v.holdable(now, cfg); ok {
		v.hold = &h
	}
}

// unmoved drops a velocity of 0 measured on a float series while the
// provider's sessions wrote over its span: the series did not show the burn.
func (v *windowView) unmoved(own providerSessions, now time.Time, cfg Config) {
	if !v.live || v.method != MethodMeasured || v.held || v.pps > 0 || v.source.resolution() > 0 {
		return
	}
	if !slices.ContainsFunc(own.all, func(s *session) bool { return !s.last.IsZero() && !s.last.Before(v.since) }) {
		return
	}
	v.since, v.until, v.unc, v.source, v.settling, v.blend = time.Time{}, time.Time{}, 0, "", false, nil
	v.ticks, v.path = nil, nil
	v.average(now, cfg)
	v.finish(now, cfg)
}

// holdable is the velocity a window whose sources went quiet may keep
// projecting, unless the samples say the burn stopped (docs/burn-model.md, "Hold").
func (v *windowView) holdable(now time.Time, cfg Config) (velocity, bool) {
	if cfg.VelocityHold <= cfg.VelocityFresh || v.reset.Sub(now) <= minutes(v.minutes)/30 {
		return velocity{}, false
	}
	h, ok := bestVelocity(v.samples, now, v.minutes, cfg.VelocityHold, cfg)
	if !ok || !(h.pps > 0) || now.Sub(h.last.ObservedAt) > h.last.ObservedAt.Sub(h.from) {
		// A pace seen over a few minutes says nothing of a longer span past them.
		return velocity{}, false
	}
	if flat := h.last.ObservedAt.Sub(h.settled); flat >= cfg.VelocityFresh && h.pps*flat.Seconds() >= 2*h.grain {
		return velocity{}, false
	}
	for _, s := range v.samples {
		if s.Source == SourceLimitHit || s.Source == h.last.Source || !s.ObservedAt.After(h.last.ObservedAt) {
			continue
		}
		want := h.last.UsedPercent + h.pps*s.ObservedAt.Sub(h.last.ObservedAt).Seconds()
		if s.UsedPercent+2*max(s.Source.resolution(), h.grain) < want {
			return velocity{}, false
		}
	}
	return h, true
}

// keep makes the held velocity the window's burn when it runs the window
// dry sooner: a quiet source can make the verdict more cautious, never rosier.
func (v *windowView) keep(now time.Time, cfg Config) {
	if v.hold == nil || v.held || v.status.State == Exhausted {
		return
	}
	h := *v.hold
	used := max(h.usedAt(now), v.shown.UsedPercent)
	if !(secondsLeft(used, h.pps) < secondsLeft(v.usedNow, v.pps)) {
		return
	}
	v.pps, v.method, v.since, v.until, v.unc, v.usedNow, v.held = h.pps, MethodMeasured, h.from, h.last.ObservedAt, h.unc, used, true
	v.finish(now, cfg)
}

// secondsLeft is how long used percent lasts at pps.
func secondsLeft(used, pps float64) float64 {
	if !(pps > 0) {
		return math.Inf(1)
	}
	return max(100-used, 0) / pps
}

// finish fills a live window's status from its burn.
func (v *windowView) finish(now time.Time, cfg Config) {
	st := v.status
	// A held velocity is no fresh figure, whatever the shown sample's age.
	st.Fresh = now.Sub(v.shown.ObservedAt) <= cfg.SampleFresh && !v.held
	// At most the whole window in a second: past that a figure means nothing,
	// and a ratio learned from almost no tokens could overflow to +Inf.
	if math.IsNaN(v.pps) {
		v.pps = 0
	}
	v.pps = min(max(v.pps, 0), 100)
	if v.shown.Source == SourceLimitHit || v.shown.UsedPercent >= 100 {
		v.usedNow = max(v.usedNow, v.shown.UsedPercent)
	}
	settling, behind := v.settling && v.method == MethodMeasured, false
	// Whole-percent ticks that prove the figure more than 15 % off: it is
	// settling, and behind when they rose faster (docs/burn-model.md, "Changes of pace").
	if v.method == MethodMeasured || v.method == MethodNowcast {
		above, below := v.offTicks(0.15)
		// Both at once is a slowdown, not behind.
		settling, behind = settling || above || below, below && !above
	}
	st.Burn = Burn{PercentPerS: v.pps, QuotaMinutesPerHour: quotaMinutesPerHour(v.pps, v.minutes), Method: v.method, Settling: settling, Behind: behind,
		SustainableQuotaMinutesPerHour: quotaMinutesPerHour(sustainable(now, v.reset, v.usedNow), v.minutes)}
	st.RunoutAt, st.RunoutMinutesBeforeReset = project(now, v.reset, v.usedNow, v.pps)
	st.State = verdict(st.UsedPercent, st.RunoutAt, cfg)
	if st.State == Exhausted {
		st.RunoutAt, st.RunoutMinutesBeforeReset = nil, 0
	}
}

// verdict is a live window's state.
func verdict(used float64, runout *time.Time, cfg Config) State {
	switch {
	case used >= 100:
		return Exhausted
	case 100-used <= cfg.LowPercent:
		return Low
	case runout != nil:
		return RunoutBeforeReset
	}
	return OnTrack
}

// sustainable is the burn in percent per second that lasts from used now
// to the reset: at a faster one, project finds a run-out before it.
func sustainable(now, reset time.Time, used float64) float64 {
	return finite(max(100-used, 0) / max(reset.Sub(now).Seconds(), 1))
}

// project says when a window with used percent burning pps runs dry: nil
// when that is not before its reset.
func project(now, reset time.Time, used, pps float64) (*time.Time, float64) {
	remaining := max(100-used, 0)
	if remaining > 0 && pps <= 0 {
		return nil, 0
	}
	secs := 0.0
	if remaining > 0 {
		secs = remaining / pps
	}
	toReset := reset.Sub(now).Seconds()
	if !(secs < toReset) {
		return nil, 0
	}
	at := now.Add(time.Duration(secs * float64(time.Second)))
	return &at, finite((toReset - secs) / 60)
}

// forward drops the readings of an instance with a known reset that are an
// old value reported late: a window's percent never goes back, unless a
// real early reset followed (restarted; docs/burn-model.md, "Window instances").
func forward(ss []Sample) []Sample {
	top := -1
	var out []Sample
	for i, s := range ss {
		below := func(x Sample) bool {
			return x.UsedPercent < ss[top].UsedPercent-dropStep(x, ss[top])-1e-9
		}
		if top >= 0 && below(s) && !restarted(ss, i, below) {
			if out == nil {
				out = slices.Clone(ss[:i])
			}
			continue
		}
		if out != nil {
			out = append(out, s)
		}
		if top < 0 || s.UsedPercent > ss[top].UsedPercent || below(s) {
			top = i
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// dropStep is how far x may read below top and still be as new: a step of
// the coarser of two sources, which round apart; nothing for one source.
func dropStep(x, top Sample) float64 {
	if x.Source == top.Source {
		return 0
	}
	return max(x.Source.resolution(), top.Source.resolution())
}

// restarted says whether the drop at ss[i] (below the instance's top) is a
// real reset rather than an old value reported late; see forward.
func restarted(ss []Sample, i int, below func(Sample) bool) bool {
	if ss[i].Source == SourceOAuth {
		return true
	}
	for _, x := range ss[i+1:] {
		if !below(x) {
			return false // back up: the drop was an old value
		}
		if x.Source == SourceOAuth || x.UsedPercent >= ss[i].UsedPercent+max(x.Source.resolution(), ss[i].Source.resolution(), 0.1)-1e-9 {
			return true
		}
	}
	return false
}

// freshest is the sample a window shows: the newest, the finer source on a tie.
func freshest(ss []Sample) Sample {
	best := ss[0]
	for _, s := range ss[1:] {
		switch c := s.ObservedAt.Compare(best.ObservedAt); {
		case c > 0,
			c == 0 && s.Source.resolution() < best.Source.resolution(),
			c == 0 && s.Source.resolution() == best.Source.resolution() && s.UsedPercent > best.UsedPercent:
			best = s
		}
	}
	return best
}

// A velocity is a measured burn of one source's sample series.
type velocity struct {
	pps     float64   // percent per second
	from    time.Time // start of the span it covers
	last    Sample    // newest sample of the series
	cross   time.Time // about when the series reached last's value
	settled time.Time // the first sample of the series showing last's value
	res     float64   // the source's resolution
	grain   float64   // the smallest move the series shows: at least res
	unc     float64   // how far off one step of the source can put pps
	// settling: the pace changed and one sample since says so; the figure
	// blends the old pace with the new until the next.
	settling bool
	blend    *velocity // the velocity over the usual span, the change ignored
}

// usedAt extrapolates the series to t, never past the next step unseen.
func (v velocity) usedAt(t time.Time) float64 {
	p := v.last.UsedPercent
	along := v.pps * max(t.Sub(v.cross).Seconds(), 0)
	if v.res > 0 {
		along = min(along, v.res+v.pps*max(t.Sub(v.last.ObservedAt).Seconds(), 0))
	}
	return p + along
}

// bestVelocity measures each source's series of the instance and keeps the
// finest one whose newest sample is at most maxAge old.
func bestVelocity(samples []Sample, now time.Time, windowMinutes int, maxAge time.Duration, cfg Config) (velocity, bool) {
	horizon := scaled(cfg.VelocityHorizon, windowMinutes)
	// A smaller move over the span is not told from none: 3 quota minutes per hour.
	floor := 3 * 100 / (float64(windowMinutes) * 3600)
	var best velocity
	found := false
	for src, ss := range bySource(samples) {
		v, ok := measure(ss, seriesResolution(src, ss), horizon, cfg.VelocityMinSpan, floor, true)
		if !ok || now.Sub(v.last.ObservedAt) > maxAge {
			continue
		}
		if !found || finer(v.res, v.last, best.res, best.last) {
			best, found = v, true
		}
	}
	return best, found
}

// seriesResolution is the step a source's readings move in: its own, or a
// whole percent for a float source that rose 3 times and only ever read
// whole ones (Codex rollouts): read as a float, each tick was a burst of
// hundreds of m/h.
func seriesResolution(src Source, ss []Sample) float64 {
	rises := 0
	for i, s := range ss {
		if s.UsedPercent != math.Trunc(s.UsedPercent) {
			return src.resolution()
		}
		if i > 0 && s.UsedPercent > ss[i-1].UsedPercent {
			rises++
		}
	}
	if src.resolution() > 0 || rises < 3 {
		return src.resolution()
	}
	return 1
}

// finer says whether a series at resolution res whose newest sample is last
// beats the best so far: the finest source, then the newest, then by name
// (bySource's order is a map's).
func finer(res float64, last Sample, bestRes float64, best Sample) bool {
	return cmp.Or(cmp.Compare(res, bestRes), best.ObservedAt.Compare(last.ObservedAt), cmp.Compare(last.Source, best.Source)) < 0
}

// measure is the velocity of one source's series (docs/burn-model.md,
// "Account burn"): a coarse source is read at its steps.
func measure(ss []Sample, res float64, horizon, minSpan time.Duration, floor float64, detect bool) (velocity, bool) {
	series := seriesOf(ss)
	if len(series) < 2 {
		return velocity{}, false
	}
	changed, settling := false, false
	var blend *velocity
	if detect {
		series, changed = sinceChange(series, res, 4*horizon, minSpan)
		if changed {
			if b, ok := measure(ss, res, horizon, minSpan, floor, false); ok {
				blend = &b
			}
		}
	}
	if changed && res < 1 {
		// A fine series shows a change over half the span; the new pace
		// runs from the first sample after it, blended (settling) until
		// a second one comes.
		minSpan /= 2
		if n := len(series); n >= 3 && series[n-1].ObservedAt.Sub(series[1].ObservedAt) >= minSpan {
			series = series[1:]
		} else {
			settling = true
		}
	}
	last := series[len(series)-1]
	steps := stepsOf(series, false)
	cross := crossOf(series, steps, res)
	v := velocity{last: last, cross: cross, res: res, grain: res, settled: last.ObservedAt, settling: settling, blend: blend}
	for i := len(series) - 1; i >= 0 && series[i].UsedPercent == last.UsedPercent; i-- {
		v.settled = series[i].ObservedAt
	}
	smallest := math.Inf(1)
	for i := 1; i < len(series); i++ {
		if d := series[i].UsedPercent - series[i-1].UsedPercent; d > 0 {
			smallest = min(smallest, d)
		}
	}
	if !math.IsInf(smallest, 1) {
		v.grain = max(res, smallest)
	}
	for _, h := range []time.Duration{horizon, 2 * horizon, 4 * horizon} {
		from := last.ObservedAt.Add(-h)
		// A series moving by several steps at a time rose between its
		// samples, not at their midpoints: it is read as a float one.
		if res > 0 && v.grain < 3*res {
			i := slices.IndexFunc(steps, func(s step) bool { return !s.at().Before(from) })
			if i >= 0 && len(steps)-i >= 2 {
				first, end := steps[i], steps[len(steps)-1]
				if span := end.at().Sub(first.at()); span >= minSpan {
					rate := (end.level - first.level) / span.Seconds()
					// It reached first.level by first.seen and is below
					// the next step now.
					v.pps, v.from, v.unc = rate, first.at(), res/span.Seconds()
					if d := last.ObservedAt.Sub(first.seen); d > 0 {
						v.pps = min(rate, (last.UsedPercent+res-first.level)/d.Seconds())
					}
					return v, true
				}
			}
		}
		i := slices.IndexFunc(series, func(s Sample) bool { return !s.ObservedAt.Before(from) })
		base := series[i]
		span := last.ObservedAt.Sub(base.ObservedAt)
		if span < minSpan {
			continue
		}
		rate := (last.UsedPercent - base.UsedPercent) / span.Seconds()
		if res == 0 || res/span.Seconds() <= max(rate/2, floor) {
			v.pps, v.from, v.unc = rate, base.ObservedAt, res/span.Seconds()
			return v, true
		}
	}
	return velocity{}, false
}

// sinceChange is the part of a series after its last change of pace within
// span of its newest sample, or all of it (docs/burn-model.md, "Changes of pace").
func sinceChange(series []Sample, res float64, span, minSpan time.Duration) ([]Sample, bool) {
	i := withinSpan(series, span)
	at := make([]time.Time, 0, len(series)-i)
	cum := make([]float64, 0, len(series)-i)
	for _, s := range series[i:] {
		at, cum = append(at, s.ObservedAt), append(cum, s.UsedPercent)
	}
	after := changeAfter(res, minSpan)
	grain := max(res, 0.1)
	k, changed := latestChange(at, cum, func(at []time.Time, cum []float64) (int, bool) {
		k, ok := changeAt(at, cum, grain, minSpan, after)
		if u := countUnit(at, cum, grain, res); !ok && u < grain {
			// Counted finer, a regular series shows a speed-up sooner; a
			// slowdown only as the grain allows (a pause is no stop).
			if j, fine := changeAt(at, cum, u, minSpan, after); fine && speedsUp(at, cum, j) {
				return j, true
			}
		}
		return k, ok
	})
	return series[i+k:], changed
}

// withinSpan is the index of a series' first sample within span of its
// newest one.
func withinSpan(series []Sample, span time.Duration) int {
	from := series[len(series)-1].ObservedAt.Add(-span)
	return slices.IndexFunc(series, func(s Sample) bool { return !s.ObservedAt.Before(from) })
}

// bySource is each source's samples but limit hits, in their order.
func bySource(samples []Sample) map[Source][]Sample {
	out := map[Source][]Sample{}
	for _, s := range samples {
		if s.Source != SourceLimitHit {
			out[s.Source] = append(out[s.Source], s)
		}
	}
	return out
}

// seriesOf is one source's samples as a series: one value per instant, by
// time, only since the percent last went down.
func seriesOf(ss []Sample) []Sample {
	byObserved(ss)
	series := make([]Sample, 0, len(ss)) // not ss's array: ss stays whole
	for _, s := range ss {
		if n := len(series); n > 0 && series[n-1].ObservedAt.Equal(s.ObservedAt) {
			series[n-1] = s
			continue
		}
		series = append(series, s)
	}
	for i := len(series) - 1; i > 0; i-- {
		if series[i].UsedPercent < series[i-1].UsedPercent-1e-9 {
			return series[i:]
		}
	}
	return series
}

// offTicks says whether the figure moves faster (above) or slower (below)
// than the latest whole-percent ticks allow, by more than margin
// (docs/burn-model.md, "Changes of pace").
func (v *windowView) offTicks(margin float64) (above, below bool) {
	n := len(v.ticks)
	if n == 0 || v.held {
		return false, false
	}
	moved := v.path
	if moved == nil {
		moved = func(from, to time.Time) float64 { return v.pps * max(to.Sub(from).Seconds(), 0) }
	}
	z := v.ticks[n-1]
	for i := n - 1; i >= 0; i-- {
		a := v.ticks[i]
		if a.prev.Before(v.ticksLast.Add(-v.tickSpan)) {
			break
		}
		if moved(a.seen, v.ticksLast) > (z.level-a.level+v.tickRes)*(1+margin) {
			above = true
		}
		if i < n-1 && moved(a.prev, z.seen)*(1+margin) < z.level-a.level {
			below = true
		}
	}
	return above, below
}

// A step is a series reaching a new value: between the sample before it
// (prev) and the one that first showed level (seen).
type step struct {
	prev, seen time.Time
	level      float64
}

// at is about when the series reached level: halfway between the two samples.
func (s step) at() time.Time { return s.prev.Add(s.seen.Sub(s.prev) / 2) }

// stepsOf is the series' changes of value, or only its rises (a
// whole-percent series' ticks).
func stepsOf(series []Sample, risesOnly bool) []step {
	var steps []step
	for i := 1; i < len(series); i++ {
		prev, cur := series[i-1], series[i]
		if cur.UsedPercent > prev.UsedPercent || cur.UsedPercent != prev.UsedPercent && !risesOnly {
			steps = append(steps, step{prev.ObservedAt, cur.ObservedAt, cur.UsedPercent})
		}
	}
	return steps
}

// crossOf is about when a series reached its newest value: its last step
// for a coarse source (without one, its first sample), its newest sample
// for a float one.
func crossOf(series []Sample, steps []step, res float64) time.Time {
	switch {
	case res == 0:
		return series[len(series)-1].ObservedAt
	case len(steps) > 0:
		return steps[len(steps)-1].at()
	}
	return series[0].ObservedAt
}

func byObserved(ss []Sample) {
	slices.SortStableFunc(ss, func(a, b Sample) int { return a.ObservedAt.Compare(b.ObservedAt) })
}

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }

// scaled is a span set for a 5-hour window, for a window of another length.
func scaled(d time.Duration, windowMinutes int) time.Duration {
	return time.Duration(float64(d) * float64(windowMinutes) / 300)
}

func timePtr(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
