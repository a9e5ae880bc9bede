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
}

// Compute is the model: which session burns each provider's quota, how
// fast, and when the window runs dry, as of in.Now (burn-model.md §1–§4).
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

	for _, p := range order {
		ps, listed, ok := provider(p, samples[p], sessions, now, cfg)
		if ok {
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
	// Calibration (§6): without a fresh velocity, the local sessions'
	// token rate at the percent per token the instance's samples showed;
	// with one from a coarse source, the same when it agrees with the
	// velocity within one step over its span: the token side is finer, and
	// the figure stays "measured", a fresh measurement backs it.
	coarse := active.method == MethodMeasured && active.unc > 0
	if active.live && (active.method != MethodMeasured || coarse) && cfg.Calibrate && rate > 0 {
		var evs []Event
		for _, s := range mine {
			for _, st := range s.streams {
				evs = append(evs, st.events...)
			}
		}
		slices.SortFunc(evs, func(a, b Event) int { return a.At.Compare(b.At) })
		if c, ok := calibrate(active.samples, evs, active.minutes, cfg); ok && (!coarse || math.Abs(c.perToken*rate-active.pps) <= active.unc) {
			active.pps = c.perToken * rate
			if !coarse {
				active.method = MethodCalibrated
			}
			active.usedNow = max(c.usedAt(now, evs), active.shown.UsedPercent)
			active.finish(now, cfg)
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

	// Attribution (§3): the provider's burn split by the sessions' current
	// token rates. When the account measurably burns and no local session
	// wrote anything over the span that measured it, the burn is elsewhere.
	pps := active.pps
	elsewhere := 0.0
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
