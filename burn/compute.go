package burn

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// Input is everything the model reads. Nothing needs to be pre-filtered by
// age or sorted: Compute windows and orders it.
type Input struct {
	Now      time.Time
	Events   []Event    // deduplicated usage events, any age
	Samples  []Sample   // every account sample from every source, any age, any order
	Activity []Activity // the newest line per session
	Warnings []string   // passed through to the snapshot
	// Accounts are the logins known to be in use; none: those the samples
	// and events name (docs/burn-model.md, "Several logins").
	Accounts []Account
}

// Compute is the model: which session burns each provider's quota, how
// fast, and when the window runs dry, as of in.Now (docs/burn-model.md).
func Compute(in Input, cfg Config) Snapshot {
	cfg = cfg.withDefaults()
	now := in.Now.UTC()
	snap := Snapshot{At: now, Providers: []ProviderStatus{}, Sessions: []SessionStatus{}, Warnings: []string{}}
	snap.Warnings = append(snap.Warnings, in.Warnings...)

	samples, futureSamples := cleanSamples(in.Samples, now, cfg)
	events, futureEvents := cleanEvents(in.Events, now, cfg)
	sessions := buildSessions(events, in.Activity, now, cfg)
	if futureSamples+futureEvents > 0 {
		snap.Warnings = append(snap.Warnings, fmt.Sprintf(
			"burn: ignored %d usage events and %d account samples dated more than %v after now (is a clock wrong?)",
			futureEvents, futureSamples, cfg.FutureSkew))
	}

	order := slices.Collect(maps.Keys(samples))
	for _, s := range sessions {
		order = append(order, s.provider)
	}
	slices.SortFunc(order, compareProviders)
	order = slices.Compact(order)

	owner := owners(in.Events, in.Activity)
	for _, p := range order {
		groups := byAccount(p, samples[p], sessions, owner, in.Accounts)
		for _, g := range groups {
			ps, listed, ok := provider(p, g.samples, g.sessions, now, cfg)
			if !ok {
				continue
			}
			if len(groups) > 1 {
				ps.Account, ps.AccountLabel = g.id, g.label
				for i := range listed {
					listed[i].Account = g.id
				}
			}
			snap.Providers = append(snap.Providers, ps)
			snap.Sessions = append(snap.Sessions, listed...)
		}
	}
	rank(snap.Sessions)
	return snap.normal()
}

// provider computes one provider's status and its listed sessions.
func provider(p Provider, samples map[WindowClass][]Sample, sessions []*session, now time.Time, cfg Config) (ProviderStatus, []SessionStatus, bool) {
	five := view(samples[FiveHour], now, cfg)
	week := view(samples[Weekly], now, cfg)
	active := five
	if five.status == nil {
		active = week
	}
	own := sessionsOf(p, sessions, active.lookback(now, cfg), now, cfg)
	active.unmoved(own, now, cfg)
	week.unmoved(own, now, cfg)
	elsewhere := 0.0
	if active.live && cfg.Calibrate && own.rate > 0 {
		elsewhere = active.nowcast(&own, now, cfg)
	}
	own.hold(&active, now, cfg)
	if five.status != nil { // else active is the weekly window
		own.hold(&week, now, cfg)
	}
	if !recentSample(samples, now) && len(own.listed) == 0 {
		return ProviderStatus{}, nil, false
	}
	if active.live && active.status != nil && own.doubtful(now) {
		active.status.Burn.Settling = true
	}
	ps := accountStatus(p, &active, &week)
	if active.unseenBurn(own) {
		elsewhere = active.pps
	}
	ps.ElsewhereQuotaMinutesPerHour = quotaMinutesPerHour(elsewhere, active.minutes)
	return ps, own.shares(ps, &active, &week, elsewhere, now, cfg), true
}

// providerSessions is one provider's sessions: all of them, and those
// listed with the token rate they count for attribution.
type providerSessions struct {
	all, listed []*session
	rate        float64 // the listed sessions' tokens per second
}

// lookback is the oldest last usage that keeps a quiet session listed: the
// idle look-back, and no further back than the window's instance.
func (v *windowView) lookback(now time.Time, cfg Config) time.Time {
	lookback := now.Add(-cfg.IdleLookback)
	switch {
	case v.live:
		lookback = maxTime(lookback, v.start)
	case v.status != nil:
		lookback = maxTime(lookback, v.reset)
	}
	return lookback
}

// sessionsOf is p's sessions; those still present or with usage since
// lookback are listed.
func sessionsOf(p Provider, sessions []*session, lookback, now time.Time, cfg Config) providerSessions {
	var own providerSessions
	for _, s := range sessions {
		if s.provider != p {
			continue
		}
		own.all = append(own.all, s)
		if s.present(now, cfg) || !s.last.IsZero() && !s.last.Before(lookback) {
			own.listed = append(own.listed, s)
			own.rate += s.rate
		}
	}
	return own
}

// doubtful: a session carrying a sixth of the burn has paused past half its
// user's usual pause: the figure assumes the user comes back.
func (own providerSessions) doubtful(now time.Time) bool {
	for _, s := range own.listed {
		if s.kind == Waiting && s.pausing(now) && now.Sub(s.activity.At) > s.pause/2 && own.rate > 0 && s.rate/own.rate > 1.0/6 {
			return true
		}
	}
	return false
}

// events is the tokens of every event of the provider's sessions, in
// SortEvents' order (by time, then provider and key: the same sums to the
// last bit whichever way the events came).
func (own providerSessions) events() []tokenAt {
	n := 0
	for _, s := range own.all {
		for _, st := range s.streams {
			n += len(st.events)
		}
	}
	// Sorted by pointer, then copied out small: events are large.
	byTime := make([]*Event, 0, n)
	for _, s := range own.all {
		for _, st := range s.streams {
			for i := range st.events {
				byTime = append(byTime, &st.events[i])
			}
		}
	}
	slices.SortStableFunc(byTime, func(a, b *Event) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c // most pairs: cmp.Or would compare their keys too
		}
		return sameTime(a, b)
	})
	evs := make([]tokenAt, len(byTime))
	for i, e := range byTime {
		evs[i] = tokenAt{e.At, e.Weighted}
	}
	return evs
}

// nowcast is the burn at the percent per token times the sessions' token
// rate now (docs/burn-model.md, "Nowcast"). It returns the burn elsewhere.
func (v *windowView) nowcast(own *providerSessions, now time.Time, cfg Config) float64 {
	evs := v.confirmed(own.events(), cfg)
	c, ok := v.calibration(evs, cfg)
	if !ok {
		return 0
	}
	own.uncap(v, c)
	elsewhere := 0.0
	// The percent's own pace runs the window dry before its reset.
	measuredOut := v.method == MethodMeasured && !v.held && v.status.RunsOut()
	if v.method == MethodMeasured && !v.held {
		elsewhere = v.correct(&c, evs, now, cfg)
	} else if v.method != MethodMeasured {
		v.method = MethodCalibrated
	}
	if v.method != MethodMeasured {
		v.followTokens(c, own.rate, elsewhere, evs, now, cfg)
		if measuredOut && windowVerdict(v.status) == Lasts {
			// Tokens alone never turn "runs out" into "lasts".
			v.status.Burn.Settling, v.status.Burn.Behind = true, true
		}
	}
	return elsewhere
}

// uncap lifts a first turn's peer cap when the percent charged the turn
// (docs/burn-model.md, "Session rates").
func (own *providerSessions) uncap(v *windowView, c calibration) {
	for _, s := range own.listed {
		for _, st := range s.streams {
			if st.hasMeasured || !st.hasProvisional || st.rate >= st.uncapped {
				continue
			}
			rise, known, seen := charged(v.samples, st.events[0].At, st.newest(), false)
			if !known || !seen || rise+c.res < c.perToken*weighted(st.events)/2 {
				continue
			}
			s.rate += st.uncapped - st.rate
			own.rate += st.uncapped - st.rate
			st.rate = st.uncapped
		}
	}
}

// confirmed is evs without the large responses the percent has not
// charged: they would pull the ratio down (docs/burn-model.md, "Nowcast").
func (v *windowView) confirmed(evs []tokenAt, cfg Config) []tokenAt {
	if len(evs) < bigResponseMin {
		return evs
	}
	sizes := make([]float64, 0, len(evs))
	for _, e := range evs {
		if e.weighted > 0 {
			sizes = append(sizes, e.weighted)
		}
	}
	if len(sizes) < bigResponseMin {
		return evs
	}
	slices.Sort(sizes)
	limit := bigResponse * sizes[len(sizes)/2]
	small := slices.DeleteFunc(slices.Clone(evs), func(e tokenAt) bool { return e.weighted > limit })
	if len(small) == len(evs) {
		return evs
	}
	c, ok := calibrate(v.samples, small, v.minutes, cfg)
	if !ok {
		return small
	}
	return slices.DeleteFunc(slices.Clone(evs), func(e tokenAt) bool {
		if e.weighted <= limit {
			return false
		}
		rise, known, seen := charged(v.samples, e.at, e.at, true)
		// Before the instance's first sample no rise can be read.
		return known && (!seen || rise+c.res < c.perToken*e.weighted/2)
	})
}

// charged is how far the percent rose from the samples before first (or at
// it, when atFirst) to those within confirmWithin after last, and whether
// either side has any.
func charged(samples []Sample, first, last time.Time, atFirst bool) (rise float64, known, seen bool) {
	before, after := 0.0, 0.0
	for _, s := range samples {
		switch {
		case s.Source == SourceLimitHit:
		case s.ObservedAt.Before(first) || atFirst && s.ObservedAt.Equal(first):
			before, known = max(before, s.UsedPercent), true
		case s.ObservedAt.After(last) && s.ObservedAt.Sub(last) <= confirmWithin:
			after, seen = max(after, s.UsedPercent), true
		}
	}
	return after - before, known, seen
}

const (
	// bigResponse: a response this many times the median one is large.
	bigResponse = 10
	// bigResponseMin: responses needed to tell a large one.
	bigResponseMin = 10
	// confirmWithin: how soon after a response the percent charges it.
	confirmWithin = 2 * time.Minute
)

// calibration is the window's percent per token as of ratioLag ago, so a
// change of the burn elsewhere is not folded into it.
func (v *windowView) calibration(evs []tokenAt, cfg Config) (calibration, bool) {
	c, ok := calibrate(v.samples, evs, v.minutes, cfg)
	if !ok && len(v.previous) > 0 {
		// Just after a rollover: the previous instance's ratio.
		c, ok = calibrate(v.previous, evs, v.minutes, cfg)
		c.last, c.cross, c.res = v.shown, v.shown.ObservedAt, v.shown.Source.resolution()
	}
	if !ok {
		return c, false
	}
	newest := v.samples[len(v.samples)-1].ObservedAt
	if e, ok := calibrate(observedBy(v.samples, newest.Add(-ratioLag)), evs, v.minutes, cfg); ok {
		c.perToken = e.perToken
	}
	return c, true
}

// correct weighs a fresh velocity against the ratio (docs/burn-model.md,
// "Nowcast"). It returns the burn elsewhere.
func (v *windowView) correct(c *calibration, evs []tokenAt, now time.Time, cfg Config) float64 {
	// Over the part of the velocity's span the local logs cover.
	local := 0.0
	from := maxTime(v.since, evs[0].at)
	if span := v.until.Sub(from).Seconds(); span > 0 {
		local = tokensBetween(evs, from, v.until) / span
	}
	gap := v.pps - c.perToken*local
	if r, ok := v.elsewhereChange(c, evs, cfg); ok {
		// The unexplained burn changed pace: measured since the change.
		v.since, v.until, gap, local = r.since, r.until, r.pps-c.perToken*r.local, r.local
		v.pps = r.pps
	}
	// Responses land on either side of a sample: within an eighth, agree.
	tol := max(2*v.unc, v.pps/8)
	switch {
	case math.Abs(gap) > tol && v.blend != nil && (v.settling || v.until.Sub(v.since) < cfg.VelocityMinSpan):
		// The percent alone changed pace over a short span: as likely a
		// late reading; the blend stands until the span tells.
		b := *v.blend
		v.pps, v.since, v.until, v.unc, v.settling = b.pps, b.from, b.last.ObservedAt, b.unc, false
		v.usedNow = b.usedAt(now)
		v.finish(now, cfg)
		return 0
	case gap > tol:
		v.method = MethodNowcast
		return gap
	case gap < -tol && local > 0:
		c.perToken = v.pps / local
	}
	v.method = MethodNowcast
	return 0
}

// elsewhereChange is the latest change of pace of the burn no local log
// explains; when it grew, c takes the ratio from before it, which the new
// burn has not absorbed.
func (v *windowView) elsewhereChange(c *calibration, evs []tokenAt, cfg Config) (residual, bool) {
	r, ok := unexplained(v.samples, v.source, evs, c.perToken, v.minutes, cfg)
	if !ok || !r.rising {
		return r, ok
	}
	if e, ok := calibrate(observedBy(v.samples, r.since), evs, v.minutes, cfg); ok {
		c.perToken = e.perToken
		if again, ok := unexplained(v.samples, v.source, evs, c.perToken, v.minutes, cfg); ok && again.rising {
			r = again
		}
	}
	return r, true
}

// followTokens makes the window's burn the local sessions' token rate at
// the ratio, plus the burn elsewhere.
func (v *windowView) followTokens(c calibration, tokenRate, elsewhere float64, evs []tokenAt, now time.Time, cfg Config) {
	v.pps = c.perToken*tokenRate + elsewhere
	perToken := c.perToken
	v.path = func(from, to time.Time) float64 {
		return perToken*tokensBetween(evs, from, to) + elsewhere*max(to.Sub(from).Seconds(), 0)
	}
	v.usedNow = max(c.usedAt(now, evs), v.shown.UsedPercent)
	v.finish(now, cfg)
}

// observedBy is the samples observed at or before t.
func observedBy(samples []Sample, t time.Time) []Sample {
	return slices.DeleteFunc(slices.Clone(samples), func(s Sample) bool { return s.ObservedAt.After(t) })
}

// hold keeps a quiet source's last velocity while a session at work over
// its span has not ended its turn (docs/burn-model.md, "Hold").
func (own providerSessions) hold(v *windowView, now time.Time, cfg Config) {
	if v.hold != nil && own.ongoing(v.hold.from, v.hold.last.ObservedAt) {
		v.keep(now, cfg)
	}
}

// ongoing says whether a session seen since then has not ended its turn,
// nor paused when the source went quiet: a pause the tokens know.
func (own providerSessions) ongoing(since, quiet time.Time) bool {
	for _, s := range own.all {
		if !s.lastSeen().Before(since) && !s.turnEnded() && !s.pausedAt(quiet) {
			return true
		}
	}
	return false
}

// recentSample says whether the provider has an account sample from the
// last week.
func recentSample(samples map[WindowClass][]Sample, now time.Time) bool {
	for _, ss := range samples {
		for _, s := range ss {
			if now.Sub(s.ObservedAt) <= minutes(Weekly.DefaultMinutes()) {
				return true
			}
		}
	}
	return false
}

// accountStatus is the provider's status from its active and weekly
// windows, before attribution.
func accountStatus(p Provider, active, week *windowView) ProviderStatus {
	ps := ProviderStatus{Provider: p, State: NoData, Burn: Burn{Method: MethodNone}}
	if active.status != nil {
		w := *active.status
		ps.Window = &w
		ps.Burn, ps.RunoutAt, ps.State = w.Burn, w.RunoutAt, w.State
		ps.RunoutMinutesBeforeReset = w.RunoutMinutesBeforeReset
	}
	if week.status != nil {
		w := *week.status
		ps.Weekly = &w
	}
	return ps
}

// unseenBurn: the account measurably burns and no local session wrote over
// the span that measured it, so all of it is elsewhere.
func (v *windowView) unseenBurn(own providerSessions) bool {
	if !v.live || v.method != MethodMeasured || !(v.pps > 0) || own.rate != 0 {
		return false
	}
	for _, s := range own.all {
		if !s.last.Before(v.since) {
			return false
		}
	}
	return true
}

// shares is the listed sessions' statuses: the burn less elsewhere, split
// by token rates, and what pausing each buys (docs/burn-model.md, "Attribution").
func (own providerSessions) shares(ps ProviderStatus, active, week *windowView, elsewhere float64, now time.Time, cfg Config) []SessionStatus {
	bind, runout := pausingFor(ps, active, week)
	out := make([]SessionStatus, 0, len(own.listed))
	for _, s := range own.listed {
		st := s.status(now, cfg)
		share := 0.0
		if own.rate > 0 {
			share = finite((active.pps - elsewhere) * s.rate / own.rate)
		}
		st.QuotaMinutesPerHour = quotaMinutesPerHour(share, active.minutes)
		switch {
		case bind == active:
			if active.live && ps.State != Exhausted {
				active.pause(&st, share, ps.RunoutAt, now)
			}
		case own.rate > 0:
			// The same part of the weekly burn as of the active one.
			local := 1.0
			if active.pps > 0 {
				local = max(active.pps-elsewhere, 0) / active.pps
			}
			bind.pause(&st, finite(bind.pps*local*s.rate/own.rate), runout, now)
			st.PauseWindow = bind.status.Class
		}
		out = append(out, st)
	}
	return out
}

// pausingFor is the window pausing a session is about, and its run-out:
// the active one, unless the weekly window runs out before it.
func pausingFor(ps ProviderStatus, active, week *windowView) (*windowView, *time.Time) {
	wk := week.status
	// A plan with the weekly window only has it as its active window.
	activeIsWeek := active.status != nil && active.status.Class == Weekly
	if activeIsWeek || !week.live || wk == nil || wk.State == Exhausted || !wk.RunsOut() || ps.State == Exhausted {
		return active, ps.RunoutAt
	}
	if ps.Window.RunsOut() && !wk.RunoutAt.Before(*ps.Window.RunoutAt) {
		return active, ps.RunoutAt
	}
	return week, wk.RunoutAt
}

// status is the session's status before attribution.
func (s *session) status(now time.Time, cfg Config) SessionStatus {
	proj, model, host := s.describe()
	st := SessionStatus{
		Provider:    s.provider,
		ID:          s.id,
		Project:     proj,
		Model:       model,
		Host:        host,
		TokensPerS:  finite(s.rate),
		RateKind:    s.kind,
		LastEventAt: s.last,
		Agents:      s.agents(now, cfg),
	}
	if s.last.IsZero() {
		st.LastEventAt = s.lastSeen()
	}
	return st
}

// pause fills in what pausing a session that burns share of the window buys.
func (v *windowView) pause(st *SessionStatus, share float64, runout *time.Time, now time.Time) {
	st.PauseRunoutAt, _ = project(now, v.reset, v.usedNow, max(v.pps-share, 0))
	st.PauseLastsToReset = st.PauseRunoutAt == nil
	if runout != nil {
		end := v.reset
		if st.PauseRunoutAt != nil {
			end = *st.PauseRunoutAt
		}
		st.PauseGainMinutes = max(finite(end.Sub(*runout).Minutes()), 0)
	}
}

// rank orders sessions: those burning now first, by quota minutes per hour,
// then by what pausing them buys; waiting ones next and idle ones last.
func rank(ss []SessionStatus) {
	group := func(k RateKind) int {
		switch k {
		case Measured, Provisional:
			return 0
		case Waiting:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ss, func(a, b SessionStatus) int {
		return cmp.Or(
			cmp.Compare(group(a.RateKind), group(b.RateKind)),
			cmp.Compare(b.QuotaMinutesPerHour, a.QuotaMinutesPerHour),
			cmp.Compare(b.PauseGainMinutes, a.PauseGainMinutes),
			cmp.Compare(b.TokensPerS, a.TokensPerS),
			b.LastEventAt.Compare(a.LastEventAt),
			compareProviders(a.Provider, b.Provider),
			cmp.Compare(a.ID, b.ID),
		)
	})
}

// ratioLag: the ratio of percent to tokens the nowcast uses is learned from
// samples at least this old.
const ratioLag = 5 * time.Minute

// A residual is the pace of a window's percent and of the local tokens
// since the part of the percent no local token explains changed pace.
type residual struct {
	since, until time.Time
	pps          float64 // the percent's pace since the change
	local        float64 // the local weighted tokens per second meanwhile
	rising       bool    // the unexplained burn grew (else it shrank)
}

// unexplained looks for a change of pace in what the percent moved beyond
// the local tokens' cost at perToken: burn elsewhere starting or stopping.
func unexplained(samples []Sample, src Source, events []tokenAt, perToken float64, windowMinutes int, cfg Config) (residual, bool) {
	ss := bySource(samples)[src]
	series, res := seriesOf(ss), seriesResolution(src, ss)
	if len(series) < 3 {
		return residual{}, false
	}
	// The span sinceChange reads the percent over.
	series = series[withinSpan(series, 4*scaled(cfg.VelocityHorizon, windowMinutes)):]
	at := make([]time.Time, len(series))
	up := make([]float64, len(series))
	down := make([]float64, len(series))
	// Summed interval by interval: each event is read once.
	tokens := 0.0
	for j, s := range series {
		if j > 0 {
			tokens += tokensBetween(events, series[j-1].ObservedAt, s.ObservedAt)
		}
		r := s.UsedPercent - series[0].UsedPercent - perToken*tokens
		at[j], up[j], down[j] = s.ObservedAt, r, -r
	}
	unit := max(res, 0.1)
	// A fine series may show a change over half the span (as sinceChange).
	after := changeAfter(res, cfg.VelocityMinSpan)
	n := len(at) - 1
	for dir, cum := range [][]float64{up, down} {
		k, found := latestChange(at, cum, func(at []time.Time, cum []float64) (int, bool) {
			return changeAt(at, cum, unit, cfg.VelocityMinSpan, after)
		})
		if !found || k == 0 || cum[n]-cum[k] < 3*unit || !speedsUp(at, cum, k) {
			continue
		}
		span := at[n].Sub(at[k]).Seconds()
		return residual{
			since: at[k], until: at[n],
			pps:    (series[n].UsedPercent - series[k].UsedPercent) / span,
			local:  tokensBetween(events, at[k], at[n]) / span,
			rising: dir == 0,
		}, true
	}
	return residual{}, false
}
