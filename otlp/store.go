package otlp

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
)

// StoreName is the remote events' file in runway's state folder: the
// serving process writes it, `runway now` and the statusline read it, so
// a remote session outlives the snapshot's freshness and a restart.
const StoreName = "remote.events"

// The bounds of what a Store holds, each kind in count and in the bytes
// of its lines in the saved file; past either the oldest go first (and
// are counted, Added.Dropped). Whatever a sender sends, the file stays
// under 16 MiB, far below what is read of it (maxStoreBytes), and the
// process under 100 MB (BenchmarkFlood).
const (
	// MaxEvents: 100,000 responses are 25 sessions answering every 10 s
	// for 11 hours; 12 MiB, 50,000 responses of the usual 250 bytes, is
	// the whole 6-hour lookback of 25 answering every 10 s.
	MaxEvents     = 100_000
	maxEventBytes = 12 << 20
	// MaxPrompts: a turn has a prompt and at least one response, so a
	// quarter is room to spare.
	MaxPrompts     = MaxEvents / 4
	maxPromptBytes = 1 << 20
	// MaxSeries: a session has a cumulative series per token type and
	// model, 8 or so: 2,500 sessions' worth.
	MaxSeries      = 20_000
	maxSeriesBytes = 2 << 20
	// MaxSessions: each session is a row of every snapshot, recomputed
	// each second while exports arrive; 2,500 is MaxSeries' worth.
	MaxSessions = MaxSeries / 8
)

// clockSkew is how far ahead of the receiver's clock a response or a
// prompt may be dated (two machines' clocks): one further ahead would
// never leave with the lookback, and burn has no use for it.
const clockSkew = 5 * time.Minute

// Store keeps the remote usage events inside the lookback, one per
// response whatever the retries, the users' prompts (which end the turn
// before them) and the state cumulative sums need. It is safe for
// concurrent use.
type Store struct {
	lookback time.Duration
	weight   float64

	mu     sync.Mutex
	events bounded[string, burn.Event] // by provider and Key
	// fromLogs: sessions that sent log events; their metric points are the
	// same usage and are not counted.
	fromLogs map[sessionID]bool
	// fromMetrics: sessions holding metric events, the only ones a first
	// log event has to look through.
	fromMetrics map[sessionID]bool
	cumulative  bounded[string, cumulativeState] // by Point.Series and type
	// prompts: the users' prompts inside the lookback. The response
	// before each ended its turn (Events marks it), whatever order the
	// exports arrived in.
	prompts bounded[promptKey, struct{}]
	// mostSessions bounds the sessions holding events (MaxSessions).
	mostSessions int
	listen       string              // the listener's address, saved for `runway doctor`
	requests     map[[2]string]int64 // by signal and outcome
	lastGRPC     time.Time
	gen          uint64 // bumped on every change
	saved        uint64 // gen when last saved
}

type sessionID struct {
	provider burn.Provider
	id       string
}

// promptKey is a prompt held: a retried export is the same prompt.
type promptKey struct {
	sessionID
	at int64 // Unix nanoseconds
}

// cumulativeState is a cumulative series' last point: the next one counts
// only what it adds.
type cumulativeState struct {
	Start time.Time `json:"start"`
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
}

// NewStore returns an empty Store keeping events for lookback, weighing
// metric points with weight (the cache-read weight).
func NewStore(lookback time.Duration, weight float64) *Store {
	return &Store{
		lookback: lookback,
		weight:   weight,
		events: newBounded(MaxEvents, maxEventBytes,
			func(_ string, ev burn.Event) int { return eventLine(ev) },
			func(_ string, ev burn.Event) int64 { return ev.At.UnixNano() }),
		fromLogs:    map[sessionID]bool{},
		fromMetrics: map[sessionID]bool{},
		cumulative: newBounded(MaxSeries, maxSeriesBytes, seriesLine,
			func(_ string, c cumulativeState) int64 { return c.At.UnixNano() }),
		prompts: newBounded(MaxPrompts, maxPromptBytes,
			func(k promptKey, _ struct{}) int { return promptLine(k.prompt()) },
			func(k promptKey, _ struct{}) int64 { return k.at }),
		mostSessions: MaxSessions,
		requests:     map[[2]string]int64{},
	}
}

// Added is what one Add did.
type Added struct {
	Events     int // responses counted for the first time
	Duplicates int // responses already held (a retry, a second copy)
	Ignored    int // metric points of sessions whose log events count
	Stale      int // responses dated outside the lookback: older, or ahead of the clock
	Prompts    int // prompts held for the first time
	// Ahead is how far the furthest of the records dated ahead of the
	// clock (by more than clockSkew: left out, counted in Stale) was.
	Ahead time.Duration
	// Dropped is what the store let go, the oldest first, to stay within
	// its bounds.
	Dropped Dropped
}

// Dropped counts records a Store let go to stay within its bounds.
type Dropped struct {
	Events, Prompts, Series int64
}

// Any says whether anything was dropped.
func (d Dropped) Any() bool { return d != Dropped{} }

// ahead notes a record dated at left out for being ahead of now.
func (a *Added) ahead(at, now time.Time) { a.Ahead = max(a.Ahead, at.Sub(now)) }

// Add keeps a batch's usage as of now and reports what was new.
func (s *Store) Add(now time.Time, b Batch) Added {
	s.mu.Lock()
	defer s.mu.Unlock()
	var a Added
	dropped := s.dropped()
	horizon := now.Add(-s.lookback)
	for _, ev := range b.Events {
		if outside(ev.At, horizon, now) {
			// Not even as a session that sends log events: one response
			// dated outside the lookback is all a session name costs.
			if ev.At.After(now) {
				a.ahead(ev.At, now)
			}
			a.count(putStale)
			continue
		}
		sid := sessionID{ev.Provider, ev.Session}
		// From now on the log events count for this session, not the
		// metric deltas of the same responses.
		s.fromLogs[sid] = true
		if s.fromMetrics[sid] {
			delete(s.fromMetrics, sid)
			if s.events.deleteFunc(func(_ string, old burn.Event) bool {
				return old.Provider == ev.Provider && old.Session == ev.Session && strings.HasPrefix(old.Key, keyMetric)
			}) {
				s.gen++
			}
		}
		a.count(s.put(ev, horizon, now))
		s.boundSessions()
	}
	for _, p := range b.Prompts {
		if s.putPrompt(p, horizon, now) {
			a.Prompts++
		} else if p.At.After(now.Add(clockSkew)) {
			a.ahead(p.At, now)
		}
	}
	for _, p := range b.Points {
		if s.fromLogs[sessionID{burn.Claude, p.Session}] {
			a.Ignored++
			continue
		}
		if p.At.After(now.Add(clockSkew)) {
			// Not even as a cumulative series' last point: every point
			// after it would read as an older one delivered late.
			a.Stale++
			a.ahead(p.At, now)
			continue
		}
		ev, ok := s.pointEvent(p, horizon)
		if !ok {
			a.Duplicates++
			continue
		}
		o := s.put(ev, horizon, now)
		if o != putStale {
			s.fromMetrics[sessionID{burn.Claude, p.Session}] = true
			s.boundSessions()
		}
		a.count(o)
	}
	s.trim()
	a.Dropped = s.dropped().minus(dropped)
	return a
}

func (a *Added) count(o putOutcome) {
	switch o {
	case putNew:
		a.Events++
	case putStale:
		a.Stale++
	default:
		a.Duplicates++
	}
}

type putOutcome int

const (
	putNew putOutcome = iota
	putDuplicate
	putStale
)

// put keeps ev unless it is dated outside the lookback: older than the
// horizon, or further ahead of now than clockSkew; a later copy of a
// response replaces the earlier one.
func (s *Store) put(ev burn.Event, horizon, now time.Time) putOutcome {
	if outside(ev.At, horizon, now) {
		return putStale
	}
	k := string(ev.Provider) + "/" + ev.Key
	old, had := s.events.get(k)
	if had && old == ev {
		return putDuplicate
	}
	s.events.set(k, ev)
	s.gen++
	if had {
		return putDuplicate
	}
	return putNew
}

// putPrompt keeps a prompt dated inside the lookback, and reports whether
// it is new.
func (s *Store) putPrompt(p Prompt, horizon, now time.Time) bool {
	if outside(p.At, horizon, now) {
		return false
	}
	k := promptKey{sessionID{p.Provider, p.Session}, p.At.UnixNano()}
	if _, had := s.prompts.get(k); had {
		return false
	}
	s.prompts.set(k, struct{}{})
	s.gen++
	return true
}

// outside says whether a record dated at is outside the lookback: older
// than the horizon, or further ahead of now than clockSkew.
func outside(at, horizon, now time.Time) bool {
	return at.Before(horizon) || at.After(now.Add(clockSkew))
}

func (k promptKey) prompt() Prompt {
	return Prompt{Provider: k.provider, Session: k.id, At: time.Unix(0, k.at).UTC()}
}

// promptList is the prompts held, oldest first.
func (s *Store) promptList() []Prompt {
	out := make([]Prompt, 0, s.prompts.len())
	for k := range s.prompts.m {
		out = append(out, k.prompt())
	}
	slices.SortFunc(out, func(a, b Prompt) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(string(a.Provider), string(b.Provider)), strings.Compare(a.Session, b.Session))
	})
	return out
}

// inTurns puts events in time order and marks the end of each turn: each
// session's last response before each of its prompts. A prompt at the
// very time of a response comes before it: a turn's first response never
// precedes its prompt.
func inTurns(events []burn.Event, prompts []Prompt) []burn.Event {
	byTime := func(a, b burn.Event) int { return a.At.Compare(b.At) }
	if !slices.IsSortedFunc(events, byTime) {
		slices.SortFunc(events, byTime) // burn orders a time's events itself (SortEvents)
	}
	if len(prompts) == 0 || len(events) == 0 {
		return events
	}
	if !slices.IsSortedFunc(prompts, func(a, b Prompt) int { return a.At.Compare(b.At) }) {
		prompts = slices.Clone(prompts)
		slices.SortFunc(prompts, func(a, b Prompt) int { return a.At.Compare(b.At) })
	}
	last := map[sessionID]int{}
	j := 0
	for i := 0; i <= len(events); i++ {
		for j < len(prompts) && (i == len(events) || !prompts[j].At.After(events[i].At)) {
			if k, ok := last[sessionID{prompts[j].Provider, prompts[j].Session}]; ok {
				events[k].EndsTurn = true
			}
			j++
		}
		if i < len(events) {
			last[sessionID{events[i].Provider, events[i].Session}] = i
		}
	}
	return events
}

// pointEvent turns a token.usage point into an event: a delta as it is, a
// cumulative value as what it adds to the series' previous point. ok is
// false for a point that adds nothing (a repeat, an older point delivered
// late, the first point of a series begun before the horizon).
func (s *Store) pointEvent(p Point, horizon time.Time) (burn.Event, bool) {
	value, start := p.Value, p.Start
	if p.Cumulative {
		k := p.Series + "/" + p.Type
		last, seen := s.cumulative.get(k)
		switch {
		case !seen && !p.Start.IsZero() && p.Start.Before(horizon):
			// First heard of a session running since before the
			// lookback (the receiver just started): its sum is mostly
			// older usage, and all of it at one instant would take the
			// whole share. It is the base, as a rollout's first total is
			// for a read begun mid-file.
			value = 0
		case !seen || !last.Start.Equal(p.Start) || p.Value < last.Value && p.At.After(last.At):
			// A new series or a restarted one: all of it is new.
		case !p.At.After(last.At):
			return burn.Event{}, false
		default:
			value, start = p.Value-last.Value, last.At
		}
		s.cumulative.set(k, cumulativeState{Start: p.Start, At: p.At, Value: p.Value})
		s.gen++
	}
	if value <= 0 {
		return burn.Event{}, false
	}
	var tok burn.Tokens
	*tokenField(&tok, p.Type) = int64(value + 0.5)
	ev := burn.Event{
		Provider: burn.Claude,
		Session:  p.Session,
		Project:  p.Project,
		Model:    p.Model,
		Host:     p.Host,
		At:       p.At,
		Key:      keyMetric + p.Session + "/" + p.Series + "/" + p.Type + "@" + p.At.Format(time.RFC3339Nano),
		Tokens:   tok,
		Weighted: tok.Weighted(s.weight),
		Final:    true,
	}
	if !start.IsZero() && start.Before(p.At) && p.At.Sub(start) < time.Hour {
		ev.TurnStart = start
	}
	return ev, true
}

// trim drops the oldest records of each kind past its bounds, the events
// of the sessions heard from least recently past mostSessions, and the
// sessions left without an event.
func (s *Store) trim() {
	if s.events.trim()+s.prompts.trim()+s.cumulative.trim() > 0 {
		s.gen++
	}
	// Each session marked has an event held, unless events were dropped
	// since: the marks are bounded by the events.
	s.boundSessions()
	if len(s.fromLogs) > s.events.len() || len(s.fromMetrics) > s.events.len() {
		s.forgetSessions()
	}
}

// boundSessions trims the sessions as they come: a request of 100,000 new
// sessions never holds their events all at once.
func (s *Store) boundSessions() {
	if len(s.fromLogs)+len(s.fromMetrics) > s.mostSessions {
		s.trimSessions()
	}
}

// trimSessions drops the events of the sessions heard from least recently
// down to 90 % of mostSessions, when more hold events.
func (s *Store) trimSessions() {
	latest := map[sessionID]int64{}
	for _, ev := range s.events.m {
		id := sessionID{ev.Provider, ev.Session}
		latest[id] = max(latest[id], ev.At.UnixNano())
	}
	if len(latest) > s.mostSessions {
		ids := slices.SortedFunc(maps.Keys(latest), func(a, b sessionID) int {
			return cmp.Or(cmp.Compare(latest[a], latest[b]), strings.Compare(a.id, b.id), strings.Compare(string(a.provider), string(b.provider)))
		})
		drop := map[sessionID]bool{}
		for _, id := range ids[:len(ids)-s.mostSessions*9/10] {
			drop[id] = true
		}
		n := s.events.len()
		s.events.deleteFunc(func(_ string, ev burn.Event) bool { return drop[sessionID{ev.Provider, ev.Session}] })
		s.events.dropped += int64(n - s.events.len())
		s.gen++
	}
	s.forgetSessions()
}

// forgetSessions forgets the sessions that have no event held.
func (s *Store) forgetSessions() {
	live := map[sessionID]bool{}
	for _, ev := range s.events.m {
		live[sessionID{ev.Provider, ev.Session}] = true
	}
	// New maps: one a request of 100,000 sessions grew keeps its size
	// (a Go map never shrinks).
	keep := func(m map[sessionID]bool) map[sessionID]bool {
		out := make(map[sessionID]bool, min(len(m), len(live)))
		for k := range m {
			if live[k] {
				out[k] = true
			}
		}
		return out
	}
	s.fromLogs, s.fromMetrics = keep(s.fromLogs), keep(s.fromMetrics)
}

// dropped is what the store let go to stay within its bounds since it was
// made.
func (s *Store) dropped() Dropped {
	return Dropped{Events: s.events.dropped, Prompts: s.prompts.dropped, Series: s.cumulative.dropped}
}

func (d Dropped) minus(e Dropped) Dropped {
	return Dropped{Events: d.Events - e.Events, Prompts: d.Prompts - e.Prompts, Series: d.Series - e.Series}
}

// Prune forgets what is older than the lookback at now.
func (s *Store) Prune(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	horizon := now.Add(-s.lookback)
	if s.events.deleteFunc(func(_ string, ev burn.Event) bool { return ev.At.Before(horizon) }) {
		s.gen++
	}
	if s.cumulative.deleteFunc(func(_ string, c cumulativeState) bool { return c.At.Before(horizon) }) {
		s.gen++
	}
	if s.prompts.deleteFunc(func(k promptKey, _ struct{}) bool { return k.at < horizon.UnixNano() }) {
		s.gen++
	}
	s.forgetSessions()
}

// Events is every event held, oldest first, the last response before
// each prompt marked as the end of its turn.
func (s *Store) Events() []burn.Event {
	s.mu.Lock()
	out := slices.AppendSeq(make([]burn.Event, 0, s.events.len()), maps.Values(s.events.m))
	prompts := s.promptList()
	s.mu.Unlock()
	return inTurns(out, prompts)
}

// Len is how many events the store holds.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.len()
}

// Save writes the store to dir/StoreName when it changed since the last
// save.
func (s *Store) Save(dir string) error {
	s.mu.Lock()
	if s.gen == s.saved {
		s.mu.Unlock()
		return nil
	}
	events := slices.Collect(maps.Values(s.events.m))
	prompts := s.promptList()
	cumulative := maps.Clone(s.cumulative.m)
	recv := ReceiverState{Listen: s.listen, Requests: maps.Clone(s.requests), LastGRPC: s.lastGRPC, Saved: time.Now()}
	gen := s.gen
	s.mu.Unlock()
	slices.SortFunc(events, func(a, b burn.Event) int { return a.At.Compare(b.At) })
	if _, err := statedir.Ensure(dir); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, StoreName), encodeStore(events, prompts, cumulative, recv)); err != nil {
		return fmt.Errorf("save remote sessions: %w", err)
	}
	s.mu.Lock()
	s.saved = max(s.saved, gen)
	s.mu.Unlock()
	return nil
}

// Load reads dir/StoreName into the store (a missing file is an empty
// store) and keeps what is inside the lookback at now.
func (s *Store) Load(dir string, now time.Time) error {
	c, err := readStore(dir, s.weight, now.Add(-s.lookback))
	if err != nil {
		return err
	}
	s.mu.Lock()
	horizon := now.Add(-s.lookback)
	for _, ev := range c.events {
		if strings.HasPrefix(ev.Key, keyLog) {
			s.fromLogs[sessionID{ev.Provider, ev.Session}] = true
		} else {
			s.fromMetrics[sessionID{ev.Provider, ev.Session}] = true
		}
		s.put(ev, horizon, now)
	}
	for _, p := range c.prompts {
		s.putPrompt(p, horizon, now)
	}
	for k, v := range c.cumulative {
		s.cumulative.set(k, v)
	}
	s.trim() // a file from a build with other bounds
	for k, n := range c.receiver.Requests {
		s.requests[k] += n
	}
	if c.receiver.LastGRPC.After(s.lastGRPC) {
		s.lastGRPC = c.receiver.LastGRPC
	}
	s.saved = s.gen
	s.mu.Unlock()
	return nil
}

// maxStoreBytes bounds what is read of the store: its 200,000 events at
// about 300 bytes each and 50,000 prompts at about 250, with room to spare.
const maxStoreBytes = 256 << 20

// ReadEvents is the remote events the serving process saved in dir that
// are at or after since (the zero time: all); none and no error when it
// never saved any.
func ReadEvents(dir string, weight float64, since time.Time) ([]burn.Event, error) {
	c, err := readStore(dir, weight, since)
	return c.turnsMarked(), err
}

// ReadState is what the serving process saved in dir: every event held
// and its listener's state, for `runway doctor`.
func ReadState(dir string, weight float64) ([]burn.Event, ReceiverState, error) {
	c, err := readStore(dir, weight, time.Time{})
	return c.turnsMarked(), c.receiver, err
}

// turnsMarked is the content's events in time order with the ends of
// turns marked, as Store.Events gives them. (Load keeps them unmarked:
// the store marks what it gives out, never what it holds.)
func (c storeContent) turnsMarked() []burn.Event { return inTurns(c.events, c.prompts) }

// SetListen records the listener's address, saved for `runway doctor`.
func (s *Store) SetListen(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listen != addr {
		s.listen = addr
		s.gen++
	}
}

// noteRequest counts a request's outcome for the saved receiver state. A
// refusal is saved (a change); a request taken is saved with its events.
func (s *Store) noteRequest(signal, outcome string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[[2]string{signal, outcome}]++
	if outcome == outcomeGRPC {
		s.lastGRPC = now
	}
	if outcome != outcomeOK {
		s.gen++
	}
}
