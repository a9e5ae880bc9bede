package burn

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// A stream is the events of one thread of a session: a subagent's events
// interleave with its parent's and would read as one fast burst.
type stream struct {
	agent          string
	events         []Event // by At
	measured       float64
	hasMeasured    bool
	provisional    float64
	hasProvisional bool
	trailing       float64 // the burst's tokens over the time up to now, not to its newest event
	fresh          bool    // newest event within Config.SessionFresh
	rate           float64 // what counts now
	uncapped       float64 // a first turn's rate without its peers' cap (uncap)
}

func (st *stream) newest() time.Time { return st.events[len(st.events)-1].At }

// finished: a subagent whose newest response ended its turn is done.
func (st *stream) finished() bool { return st.agent != "" && st.events[len(st.events)-1].EndsTurn }

// A session is one agent session with its subagents folded in.
type session struct {
	provider Provider
	id       string
	streams  []*stream // main thread first, then subagents by id
	activity *Activity
	last     time.Time // newest event, zero when it has none
	rate     float64   // tokens per second counted for attribution
	kind     RateKind
	pause    time.Duration // how long this user's pauses usually last
}

func (s *session) main() *stream {
	if len(s.streams) > 0 && s.streams[0].agent == "" {
		return s.streams[0]
	}
	return nil
}

// lastSeen is the newest sign of life: an event or any line.
func (s *session) lastSeen() time.Time {
	if s.activity != nil && s.activity.At.After(s.last) {
		return s.activity.At
	}
	return s.last
}

// present: the session is still listed as waiting when it has no fresh rate.
func (s *session) present(now time.Time, cfg Config) bool {
	within := cfg.Presence
	if s.turnEnded() {
		within = cfg.PresenceAfterTurn
	}
	return now.Sub(s.lastSeen()) <= within
}

// turnEnded: the session's newest line ended the agent's turn, so nothing
// of it burns until someone writes to it again.
func (s *session) turnEnded() bool {
	return s.activity != nil && s.activity.TurnEnded && !s.activity.At.Before(s.last)
}

// pausedAt: the main thread's newest response at t ended its turn.
func (s *session) pausedAt(t time.Time) bool {
	m := s.main()
	if m == nil {
		return false
	}
	i, _ := slices.BinarySearchFunc(m.events, t, func(e Event, t time.Time) int {
		return cmp.Or(e.At.Compare(t), -1) // after every event at t
	})
	return i > 0 && m.events[i-1].EndsTurn
}

// pausing: the session's turn ended no longer ago than its user's pauses
// usually last, so its pace still counts.
func (s *session) pausing(now time.Time) bool {
	return s.turnEnded() && now.Sub(s.activity.At) <= s.pause
}

type sessionKey struct {
	provider Provider
	id       string
}

// cleanEvents drops events that cannot be placed or are dated more than the
// skew allowance after now, and keeps one event per response key (the final
// one, else the largest) should the caller have passed streamed copies. It
// returns them by stream: by provider, session, agent, then time.
func cleanEvents(in []Event, now time.Time, cfg Config) ([]Event, int) {
	kept := make([]*Event, 0, len(in))
	future := 0
	byKey := make(map[sessionKey]int, len(in))
	for i := range in {
		e := &in[i]
		if e.Provider == "" || e.Session == "" || e.At.IsZero() {
			continue
		}
		if e.At.Sub(now) > cfg.FutureSkew {
			future++
			continue
		}
		if e.Key != "" {
			k := sessionKey{e.Provider, e.Key}
			if j, ok := byKey[k]; ok {
				if better(e, kept[j]) {
					kept[j] = e
				}
				continue
			}
			byKey[k] = len(kept)
		}
		kept = append(kept, e)
	}
	// Sorted by pointer, then copied once: moving the large events was most of a full store's cost.
	slices.SortStableFunc(kept, func(a, b *Event) int {
		if c := cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Session, b.Session)); c != 0 {
			return c // most pairs: cmp.Or evaluates all its arguments
		}
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), a.At.Compare(b.At))
	})
	out := make([]Event, len(kept))
	for i, e := range kept {
		out[i] = *e
		out[i].At = e.At.UTC()
		out[i].Weighted = weightOf(e)
	}
	return out, future
}

// weightOf is e's weighted tokens, zero when not a count.
func weightOf(e *Event) float64 {
	if math.IsNaN(e.Weighted) || math.IsInf(e.Weighted, 0) || e.Weighted < 0 {
		return 0
	}
	return e.Weighted
}

// better says whether a streamed copy of a response should replace another.
func better(a, b *Event) bool {
	if a.Final != b.Final {
		return a.Final
	}
	return weightOf(a) >= weightOf(b)
}

// buildSessions groups events and activity into sessions and computes their
// rates (docs/burn-model.md, "Session rates").
func buildSessions(events []Event, acts []Activity, now time.Time, cfg Config) []*session {
	byKey := sessionIndex{}
	byKey.addStreams(events)
	byKey.addActivity(acts, now, cfg)
	all := make([]*session, 0, len(byKey))
	for _, s := range byKey {
		for _, st := range s.streams {
			st.rates(now, cfg)
			s.last = maxTime(s.last, st.newest())
		}
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *session) int {
		return cmp.Or(compareProviders(a.provider, b.provider), cmp.Compare(a.id, b.id))
	})
	pauses := pauseAllowances(all, cfg)
	for _, s := range all {
		s.pause = pauses[s.provider]
	}
	for i, peerCap := range peerCaps(all, now, cfg) {
		all[i].count(peerCap, now, cfg)
	}
	return all
}

// pauseAllowances is how long a pause after a turn's end may last before it
// reads as a stop, learned per provider (docs/burn-model.md, "Session rates").
func pauseAllowances(all []*session, cfg Config) map[Provider]time.Duration {
	gaps := map[Provider][]time.Duration{}
	for _, s := range all {
		st := s.main()
		if st == nil {
			continue
		}
		for i, e := range st.events[:len(st.events)-1] {
			if !e.EndsTurn {
				continue
			}
			next := st.events[i+1]
			to := next.At
			if next.TurnStart.After(e.At) && next.TurnStart.Before(to) {
				to = next.TurnStart
			}
			if g := to.Sub(e.At); g > 0 && g <= cfg.BurstGapAfterTurn {
				gaps[s.provider] = append(gaps[s.provider], g)
			}
		}
	}
	out := map[Provider]time.Duration{}
	for _, s := range all {
		g := gaps[s.provider]
		if len(g) < pauseLearnMin {
			out[s.provider] = cfg.PauseDefault
			continue
		}
		slices.Sort(g)
		p90 := g[int(math.Ceil(0.9*float64(len(g))))-1]
		out[s.provider] = min(max(p90*3/2, cfg.SessionFresh), cfg.BurstGapAfterTurn)
	}
	return out
}

// pauseLearnMin: turn ends a user's pause is learned from.
const pauseLearnMin = 5

// A sessionIndex finds a session by provider and id, adding it when new.
type sessionIndex map[sessionKey]*session

func (x sessionIndex) get(p Provider, id string) *session {
	k := sessionKey{p, id}
	s := x[k]
	if s == nil {
		s = &session{provider: p, id: id}
		x[k] = s
	}
	return s
}

// addStreams gives each session its streams: each is a run of the events,
// which cleanEvents sorted by stream.
func (x sessionIndex) addStreams(events []Event) {
	for i := 0; i < len(events); {
		e := events[i]
		j := i + 1
		for j < len(events) && events[j].Provider == e.Provider && events[j].Session == e.Session && events[j].Agent == e.Agent {
			j++
		}
		s := x.get(e.Provider, e.Session)
		s.streams = append(s.streams, &stream{agent: e.Agent, events: events[i:j:j]})
		i = j
	}
}

// addActivity gives each session its newest line, skipping lines that cannot
// be placed or are dated more than the skew allowance after now.
func (x sessionIndex) addActivity(acts []Activity, now time.Time, cfg Config) {
	for _, a := range acts {
		if a.Provider == "" || a.Session == "" || a.At.IsZero() || a.At.Sub(now) > cfg.FutureSkew {
			continue
		}
		a.At = a.At.UTC()
		s := x.get(a.Provider, a.Session)
		if s.activity == nil || a.At.After(s.activity.At) {
			s.activity = &a
		}
	}
}

// peerCaps is, per session, the cap on a first turn's provisional rate: the
// fastest measured peer's rate (0: no cap).
func peerCaps(all []*session, now time.Time, cfg Config) []float64 {
	top := map[Provider][2]float64{} // the two largest measured session rates
	offer := make([]float64, len(all))
	for i, s := range all {
		offer[i] = s.measuredNow(now, cfg)
		t := top[s.provider]
		switch {
		case offer[i] > t[0]:
			t = [2]float64{offer[i], t[0]}
		case offer[i] > t[1]:
			t[1] = offer[i]
		}
		top[s.provider] = t
	}
	caps := make([]float64, len(all))
	for i, s := range all {
		t := top[s.provider]
		caps[i] = t[0]
		if offer[i] == t[0] {
			caps[i] = t[1]
		}
	}
	return caps
}

// measuredNow is the session's measured rate over its streams that wrote
// usage within the presence time.
func (s *session) measuredNow(now time.Time, cfg Config) float64 {
	sum := 0.0
	for _, st := range s.streams {
		if st.hasMeasured && now.Sub(st.newest()) <= cfg.Presence {
			sum += st.measured
		}
	}
	return sum
}

// count sets the rate each stream counts now, their sum as the session's
// and the session's rate kind. A first turn's provisional rate is capped by
// peerCap, a subagent's by its parent's measured rate.
func (s *session) count(peerCap float64, now time.Time, cfg Config) {
	parent := s.main()
	present := s.present(now, cfg) && !s.turnEnded() || s.pausing(now)
	for _, st := range s.streams {
		limit := peerCap
		if st.agent != "" && parent != nil && parent.hasMeasured {
			limit = parent.measured
		}
		capped := func(r float64) float64 {
			st.uncapped = r
			if limit > 0 {
				return min(r, limit)
			}
			return r
		}
		measured, provisional := st.measured, st.provisional
		if !st.fresh {
			// A session in a tool run or a pause keeps a fading share, so
			// its peers are not handed its burn; a finished subagent none.
			if !present || !cfg.WaitingShare || st.finished() {
				continue
			}
			measured, provisional = st.trailing, st.trailing
		}
		switch {
		case st.hasMeasured:
			st.rate = measured
		case st.hasProvisional:
			st.rate = capped(provisional)
		}
		s.rate += st.rate
	}
	s.kind = s.rateKind(now, cfg)
}

func (s *session) rateKind(now time.Time, cfg Config) RateKind {
	kind := RateKind("")
	for _, st := range s.streams {
		switch {
		case st.fresh && st.hasMeasured:
			return Measured
		case st.fresh && st.hasProvisional:
			kind = Provisional
		}
	}
	if kind != "" {
		return kind
	}
	if s.present(now, cfg) || s.pausing(now) {
		return Waiting
	}
	return Idle
}

// rates computes a stream's measured burst rate and, lacking one, the
// provisional rate of its first turn.
func (st *stream) rates(now time.Time, cfg Config) {
	ev := st.events
	n := len(ev) - 1
	st.fresh = now.Sub(ev[n].At) <= cfg.SessionFresh
	i := burstStart(ev, cfg.BurstGap, cfg.BurstGapAfterTurn, cfg.SessionHorizon)
	if cfg.SessionHorizon > 0 {
		// Beyond the reference, like the horizon.
		i = paceStart(ev, i, cfg.BurstMinSpan)
	}
	span := ev[n].At.Sub(ev[i].At)
	if span >= cfg.BurstMinSpan {
		// The earliest event's tokens paid for work before the span.
		sum := weighted(ev[i+1:])
		st.measured, st.hasMeasured = finite(sum/span.Seconds()), true
		st.trailing = finite(sum / max(now.Sub(ev[i].At), span).Seconds())
		if m := lastTurnEnd(ev, n); ev[i].EndsTurn && m > i {
			// Whole turns with their pauses, the pause under way priced in:
			// the pace until the turn under way shows a faster one.
			whole := finite(weighted(ev[i+1:m+1]) / ev[m].At.Sub(ev[i].At).Seconds())
			st.measured = max(st.measured, whole)
			if m == n {
				st.trailing = whole
			}
		}
		return
	}
	if ev[i].TurnStart.IsZero() {
		return
	}
	turn := ev[n].At.Sub(ev[i].TurnStart)
	if turn < cfg.ProvisionalMin || turn > cfg.ProvisionalMax {
		return
	}
	sum := weighted(ev[i:])
	st.provisional, st.hasProvisional = finite(sum/turn.Seconds()), true
	st.trailing = finite(sum / max(now.Sub(ev[i].TurnStart), turn).Seconds())
}

// lastTurnEnd is the index of the newest event up to n that ended its turn, or -1.
func lastTurnEnd(ev []Event, n int) int {
	for m := n; m >= 0; m-- {
		if ev[m].EndsTurn {
			return m
		}
	}
	return -1
}

// weighted sums the events' weighted tokens.
func weighted(ev []Event) float64 {
	sum := 0.0
	for _, e := range ev {
		sum += e.Weighted
	}
	return sum
}

// paceStart is where the burst's current pace began: its start, or its last
// change of pace (docs/burn-model.md, "Changes of pace").
func paceStart(ev []Event, i int, minSpan time.Duration) int {
	// The strongest change first, then the latest one after it.
	for {
		k := paceChange(ev[i:], minSpan)
		if k <= 0 {
			return i
		}
		i += k
	}
}

// paceChange is the index in burst of its strongest change of pace, or -1.
func paceChange(burst []Event, minSpan time.Duration) int {
	n := len(burst) - 1 // rates: one per response after the first
	if n < 2*sessionChangeMin {
		return -1
	}
	y := make([]float64, n)
	for j := 1; j <= n; j++ {
		gap := burst[j].At.Sub(burst[j-1].At).Seconds()
		y[j-1] = math.Log(max(burst[j].Weighted, 1) / max(gap, 1))
	}
	// Prefix sums of y and y².
	s1 := make([]float64, n+1)
	s2 := make([]float64, n+1)
	for j, v := range y {
		s1[j+1], s2[j+1] = s1[j]+v, s2[j]+v*v
	}
	best, bestK := 0.0, -1
	for k := sessionChangeMin; k <= n-sessionChangeMin; k++ {
		if burst[n].At.Sub(burst[k].At) < minSpan {
			break
		}
		na, nb := float64(k), float64(n-k)
		ma, mb := s1[k]/na, (s1[n]-s1[k])/nb
		ss := s2[k] - na*ma*ma + (s2[n] - s2[k]) - nb*mb*mb
		v := max(ss/float64(n-2), sessionSpread*sessionSpread)
		if t := math.Abs(ma-mb) / math.Sqrt(v/na+v/nb); t > best {
			best, bestK = t, k
		}
	}
	if bestK < 0 || best < sessionChangeT {
		return -1
	}
	return bestK
}

const (
	// sessionChangeT: how many standard errors apart the two paces must be.
	sessionChangeT = 6
	// sessionChangeMin: responses each side of a change, so one large
	// response is no change of pace.
	sessionChangeMin = 3
	// sessionSpread is the least spread of log rates assumed: responses
	// never cost exactly in proportion to the time between them.
	sessionSpread = 0.15
)

// burstStart is the index of the burst's earliest event: events at most gap
// apart (afterTurn after a turn's end), within horizon when it is > 0.
func burstStart(ev []Event, gap, afterTurn, horizon time.Duration) int {
	n := len(ev) - 1
	i := n
	for i > 0 {
		d := ev[i].At.Sub(ev[i-1].At)
		if d > gap || ev[i-1].EndsTurn && d > afterTurn {
			break
		}
		i--
		if horizon > 0 && ev[n].At.Sub(ev[i].At) >= horizon {
			// From a turn's end: the span then holds whole turns with
			// their pauses, not a pause fewer than turns.
			if k := slices.IndexFunc(ev[i:n], func(e Event) bool { return e.EndsTurn }); k >= 0 {
				i += k
			}
			break
		}
	}
	return i
}

// agents counts the subagents that wrote usage within the presence time.
func (s *session) agents(now time.Time, cfg Config) int {
	n := 0
	for _, st := range s.streams {
		if st.agent != "" && now.Sub(st.newest()) <= cfg.Presence {
			n++
		}
	}
	return n
}

// describe is the session's project, model and host, from its newest event
// that names them, the main thread's first.
func (s *session) describe() (project, model, host string) {
	for _, st := range s.streams {
		for i := len(st.events) - 1; i >= 0 && (project == "" || model == "" || host == ""); i-- {
			if project == "" {
				project = st.events[i].Project
			}
			if model == "" {
				model = st.events[i].Model
			}
			if host == "" {
				host = st.events[i].Host
			}
		}
	}
	return project, model, host
}

// compareProviders orders providers as providers lists them, others after.
func compareProviders(a, b Provider) int {
	return cmp.Or(cmp.Compare(providerRank(a), providerRank(b)), cmp.Compare(a, b))
}

func providerRank(p Provider) int {
	if i := slices.Index(providers, p); i >= 0 {
		return i
	}
	return len(providers)
}
