package burn

import (
	"cmp"
	"fmt"
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
	// Accounts are the logins known to be in use (a config folder's
	// account); with several of one provider, each has its own windows
	// (docs/burn-model.md, "Several logins"). None: the logins the
	// samples and events name.
	Accounts []Account
}

// Compute is the model: which session burns each provider's quota, how
// fast, and when the window runs dry, as of in.Now (docs/burn-model.md,
// "Session rates" to "Attribution").
//
// A provider is listed when it has an account sample from the last week or
// a session inside its active window, Claude first. Sessions are listed when
// they have usage inside the active window (and within Config.IdleLookback)
// or are still alive, burning first, by quota minutes per hour.
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

	providers := map[Provider]bool{}
	for p := range samples {
		providers[p] = true
	}
	for _, s := range sessions {
		providers[s.provider] = true
	}
	order := make([]Provider, 0, len(providers))
	for p := range providers {
		order = append(order, p)
	}
	slices.SortFunc(order, func(a, b Provider) int {
		return cmp.Or(cmp.Compare(providerRank(a), providerRank(b)), cmp.Compare(a, b))
	})

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

	lookback := now.Add(-cfg.IdleLookback)
	switch {
	case active.live:
		lookback = maxTime(lookback, active.start)
	case active.status != nil:
		lookback = maxTime(lookback, active.reset)
	}
	var mine, listed []*session
	rate := 0.0
	for _, s := range sessions {
		if s.provider != p {
			continue
		}
		mine = append(mine, s)
		if s.present(now, cfg) || !s.last.IsZero() && !s.last.Before(lookback) {
			listed = append(listed, s)
			rate += s.rate
		}
	}
	// Nowcast (docs/burn-model.md, "Nowcast"): once the percent per weighted token is known, the
	// burn is that ratio times the live sessions' token rate now, plus the
	// burn no local log explains. Token events arrive seconds after each
	// response, the percent in ticks and late: so a session that starts or
	// stops moves the burn at once. A fresh velocity corrects the two: what
	// it measured beyond the local tokens of its span (by more than one of
	// its steps) is elsewhere; a pace below what the ratio says of those
	// tokens lowers the ratio (it was learned while elsewhere burned too).
	// Without a fresh velocity the burn is "calibrated": the ratio alone.
	elsewhere := 0.0
	if active.live && cfg.Calibrate && rate > 0 {
		var evs []Event
		for _, s := range mine {
			for _, st := range s.streams {
				evs = append(evs, st.events...)
			}
		}
		slices.SortFunc(evs, func(a, b Event) int { return a.At.Compare(b.At) })
		c, ok := calibrate(active.samples, evs, active.minutes, cfg)
		if !ok && len(active.previous) > 0 {
			// Just after a rollover the new instance has not moved
			// enough to tell: the account's ratio is the old one's.
			c, ok = calibrate(active.previous, evs, active.minutes, cfg)
			c.last, c.cross, c.res = active.shown, active.shown.ObservedAt, active.shown.Source.Resolution()
		}
		if ok {
			// The ratio as it was a few minutes ago: a change of the burn
			// elsewhere since then would otherwise be folded into it, and
			// stand out less against it.
			newest := active.samples[len(active.samples)-1].ObservedAt
			early := slices.DeleteFunc(slices.Clone(active.samples), func(s Sample) bool {
				return s.ObservedAt.After(newest.Add(-ratioLag))
			})
			if e, ok := calibrate(early, evs, active.minutes, cfg); ok {
				c.perToken = e.perToken
			}
			fresh := active.method == MethodMeasured && !active.held
			if fresh {
				// Over the part of the velocity's span the local logs
				// cover (the caller reads usage from a bounded look-back).
				local := 0.0
				from := maxTime(active.since, evs[0].At)
				if span := active.until.Sub(from).Seconds(); span > 0 {
					local = tokensBetween(evs, from, active.until) / span
				}
				gap := active.pps - c.perToken*local
				if r, ok := unexplained(active.samples, active.source, evs, c.perToken, active.minutes, cfg); ok {
					if r.rising {
						// Burn elsewhere started (or grew): what a
						// local token costs is learned where the local
						// logs explained the percent, before it. Learned
						// across it, the ratio absorbs the new burn and
						// hands it to the local sessions.
						pre := slices.DeleteFunc(slices.Clone(active.samples), func(s Sample) bool { return s.ObservedAt.After(r.since) })
						if e, ok := calibrate(pre, evs, active.minutes, cfg); ok {
							c.perToken = e.perToken
							if again, ok := unexplained(active.samples, active.source, evs, c.perToken, active.minutes, cfg); ok && again.rising {
								r = again
							}
						}
					}
					// The burn no local log explains changed pace: its
					// measure since the change is what counts.
					active.since, active.until, gap, local = r.since, r.until, r.pps-c.perToken*r.local, r.local
					active.pps = r.pps
				}
				// An eighth of the burn is within what percent and tokens
				// disagree by over a span (responses land on either side
				// of a sample): no elsewhere, no new ratio.
				tol := max(2*active.unc, active.pps/8)
				switch {
				case math.Abs(gap) > tol && active.blend != nil && (active.settling || active.until.Sub(active.since) < cfg.VelocityMinSpan):
					// The percent alone changed pace over less than the
					// usual span, and the local tokens did not: a late
					// or missed reading as likely as a new pace. It is
					// read over the usual span, as measured, until the
					// span tells what part is elsewhere.
					b := *active.blend
					active.pps, active.since, active.until, active.unc, active.settling = b.pps, b.from, b.last.ObservedAt, b.unc, false
					active.usedNow = b.usedAt(now)
					active.finish(now, cfg)
				case gap > tol:
					elsewhere = gap
					active.method = MethodNowcast
				case gap < -tol && local > 0:
					c.perToken = active.pps / local
					active.method = MethodNowcast
				default:
					active.method = MethodNowcast
				}
			} else if active.method != MethodMeasured {
				active.method = MethodCalibrated
			}
			if active.method != MethodMeasured {
				active.pps = c.perToken*rate + elsewhere
				perToken, el := c.perToken, elsewhere
				active.path = func(from, to time.Time) float64 {
					return perToken*tokensBetween(evs, from, to) + el*max(to.Sub(from).Seconds(), 0)
				}
				active.usedNow = max(c.usedAt(now, evs), active.shown.UsedPercent)
				active.finish(now, cfg)
			}
		}
	}
	// Hold (Config.VelocityHold): a quiet source keeps its last velocity
	// while a local session that was at work over its span has not ended
	// its turn. A session in a long tool call writes nothing and reads as
	// idle, so only a turn's end says its burn stopped; a burn no local
	// session explains is not held (nothing local says it goes on).
	ongoing := func(since time.Time) bool {
		for _, s := range mine {
			if !s.lastSeen().Before(since) && !s.turnEnded() {
				return true
			}
		}
		return false
	}
	for _, v := range []*windowView{&active, &week} {
		if v.hold != nil && ongoing(v.hold.from) {
			v.keep(now, cfg)
		}
		if five.status == nil {
			break // active is the weekly window
		}
	}
	recent := false
	for _, ss := range samples {
		for _, s := range ss {
			recent = recent || now.Sub(s.ObservedAt) <= minutes(Weekly.DefaultMinutes())
		}
	}
	if !recent && len(listed) == 0 {
		return ProviderStatus{}, nil, false
	}

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

	// Attribution (docs/burn-model.md, "Attribution"): the provider's burn split by the sessions' current
	// token rates. When the account measurably burns and no local session
	// wrote anything over the span that measured it, the burn is elsewhere.
	pps := active.pps
	if active.live && active.method == MethodMeasured && pps > 0 && rate == 0 {
		local := false
		for _, s := range mine {
			local = local || !s.last.Before(active.since)
		}
		if !local {
			elsewhere = pps
		}
	}
	ps.ElsewhereQuotaMinutesPerHour = QuotaMinutesPerHour(elsewhere, active.minutes)

	out := make([]SessionStatus, 0, len(listed))
	for _, s := range listed {
		proj, model, host := s.describe()
		st := SessionStatus{
			Provider:    p,
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
		share := 0.0
		if rate > 0 {
			share = finite((pps - elsewhere) * s.rate / rate)
		}
		st.QuotaMinutesPerHour = QuotaMinutesPerHour(share, active.minutes)
		if active.live && ps.State != Exhausted {
			st.PauseRunoutAt, _ = project(now, active.reset, active.usedNow, max(pps-share, 0))
			st.PauseLastsToReset = st.PauseRunoutAt == nil
			if ps.RunoutAt != nil {
				end := active.reset
				if st.PauseRunoutAt != nil {
					end = *st.PauseRunoutAt
				}
				st.PauseGainMinutes = max(finite(end.Sub(*ps.RunoutAt).Minutes()), 0)
			}
		}
		out = append(out, st)
	}
	return ps, out, true
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
			cmp.Compare(providerRank(a.Provider), providerRank(b.Provider)),
			cmp.Compare(a.Provider, b.Provider),
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
// the local tokens' cost at perToken: burn elsewhere starting (it rises
// from flat) or stopping (the percent falls behind what the tokens cost,
// at a ratio learned while elsewhere burned). Against the percent alone such
// a change is small next to the local burn; against the residual it stands
// out within a few steps of a fine source.
func unexplained(samples []Sample, src Source, events []Event, perToken float64, windowMinutes int, cfg Config) (residual, bool) {
	var ss []Sample
	for _, s := range samples {
		if s.Source == src {
			ss = append(ss, s)
		}
	}
	series := seriesOf(ss)
	if len(series) < 3 {
		return residual{}, false
	}
	// The span sinceChange reads the percent over: a weekly window's pace
	// changes over hours, not minutes.
	from := series[len(series)-1].ObservedAt.Add(-4 * scaled(cfg.VelocityHorizon, windowMinutes))
	i := slices.IndexFunc(series, func(s Sample) bool { return !s.ObservedAt.Before(from) })
	series = series[i:]
	at := make([]time.Time, len(series))
	up := make([]float64, len(series))
	down := make([]float64, len(series))
	// The tokens since the first point, summed interval by interval: each
	// event is read once, not once per later sample (Compute runs on every
	// update).
	tokens := 0.0
	for j, s := range series {
		if j > 0 {
			tokens += tokensBetween(events, series[j-1].ObservedAt, s.ObservedAt)
		}
		r := s.UsedPercent - series[0].UsedPercent - perToken*tokens
		at[j], up[j], down[j] = s.ObservedAt, r, -r
	}
	unit := max(src.Resolution(), 0.1)
	// A fine series may show a change over half the span (as sinceChange).
	after := cfg.VelocityMinSpan
	if src.Resolution() < 1 {
		after /= 2
	}
	n := len(at) - 1
	for dir, cum := range [][]float64{up, down} {
		// The strongest change, then the latest one after it.
		k, found := 0, false
		for {
			d, ok := changeAt(at[k:], cum[k:], unit, cfg.VelocityMinSpan, after, changeLLR)
			if !ok {
				break
			}
			k, found = k+d, true
		}
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
