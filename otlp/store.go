package otlp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
)

// StoreName is the remote events' file in runway's state folder: the
// serving process writes it, `runway now` and the statusline read it, so
// a remote session outlives the snapshot's freshness and a restart.
const StoreName = "remote.json"

// MaxEvents bounds what a Store holds; past it the oldest events go first.
// 200,000 responses are 1,000 sessions answering every 10 s for over half
// an hour, about 90 MB (BenchmarkThousandSessions).
const MaxEvents = 200_000

// Store keeps the remote usage events inside the lookback, one per
// response whatever the retries, and the state cumulative sums need. It is
// safe for concurrent use.
type Store struct {
	lookback time.Duration
	weight   float64

	mu     sync.Mutex
	events map[string]burn.Event // by provider and Key
	// fromLogs: sessions that sent log events; their metric points are the
	// same usage and are not counted.
	fromLogs map[sessionID]bool
	// fromMetrics: sessions holding metric events, the only ones a first
	// log event has to look through.
	fromMetrics map[sessionID]bool
	cumulative  map[string]cumulativeState // by Point.Series and type
	gen         uint64                     // bumped on every change
	saved       uint64                     // gen when last saved
}

type sessionID struct {
	provider burn.Provider
	id       string
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
		lookback:    lookback,
		weight:      weight,
		events:      map[string]burn.Event{},
		fromLogs:    map[sessionID]bool{},
		fromMetrics: map[sessionID]bool{},
		cumulative:  map[string]cumulativeState{},
	}
}

// Added is what one Add did.
type Added struct {
	Events     int // responses counted for the first time
	Duplicates int // responses already held (a retry, a second copy)
	Ignored    int // metric points of sessions whose log events count
	Stale      int // responses older than the lookback
}

// Add keeps a batch's usage as of now and reports what was new.
func (s *Store) Add(now time.Time, b Batch) Added {
	s.mu.Lock()
	defer s.mu.Unlock()
	var a Added
	horizon := now.Add(-s.lookback)
	for _, ev := range b.Events {
		sid := sessionID{ev.Provider, ev.Session}
		if !s.fromLogs[sid] {
			// From now on the log events count for this session, not
			// the metric deltas of the same responses.
			s.fromLogs[sid] = true
		}
		if s.fromMetrics[sid] {
			delete(s.fromMetrics, sid)
			for k, old := range s.events {
				if old.Provider == ev.Provider && old.Session == ev.Session && strings.HasPrefix(old.Key, keyMetric) {
					delete(s.events, k)
					s.gen++
				}
			}
		}
		a.count(s.put(ev, horizon))
	}
	for _, p := range b.Points {
		if s.fromLogs[sessionID{burn.Claude, p.Session}] {
			a.Ignored++
			continue
		}
		ev, ok := s.pointEvent(p)
		if !ok {
			a.Duplicates++
			continue
		}
		o := s.put(ev, horizon)
		if o != putStale {
			s.fromMetrics[sessionID{burn.Claude, p.Session}] = true
		}
		a.count(o)
	}
	s.trim()
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

// put keeps ev unless it is older than the horizon; a later copy of a
// response replaces the earlier one.
func (s *Store) put(ev burn.Event, horizon time.Time) putOutcome {
	if ev.At.Before(horizon) {
		return putStale
	}
	k := string(ev.Provider) + "/" + ev.Key
	old, had := s.events[k]
	if had && old == ev {
		return putDuplicate
	}
	s.events[k] = ev
	s.gen++
	if had {
		return putDuplicate
	}
	return putNew
}

// pointEvent turns a token.usage point into an event: a delta as it is, a
// cumulative value as what it adds to the series' previous point. ok is
// false for a point that adds nothing (a repeat, an older point delivered
// late).
func (s *Store) pointEvent(p Point) (burn.Event, bool) {
	value, start := p.Value, p.Start
	if p.Cumulative {
		k := p.Series + "/" + p.Type
		last, seen := s.cumulative[k]
		switch {
		case !seen || !last.Start.Equal(p.Start) || p.Value < last.Value && p.At.After(last.At):
			// A new series or a restarted one: all of it is new.
		case !p.At.After(last.At):
			return burn.Event{}, false
		default:
			value, start = p.Value-last.Value, last.At
		}
		s.cumulative[k] = cumulativeState{Start: p.Start, At: p.At, Value: p.Value}
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

// trim drops the oldest events past MaxEvents, down to 90 % of it so the
// sort is paid rarely.
func (s *Store) trim() {
	if len(s.events) <= MaxEvents {
		return
	}
	type aged struct {
		at  time.Time
		key string
	}
	all := make([]aged, 0, len(s.events))
	for k, ev := range s.events {
		all = append(all, aged{ev.At, k})
	}
	slices.SortFunc(all, func(a, b aged) int { return a.at.Compare(b.at) })
	for _, x := range all[:len(all)-MaxEvents*9/10] {
		delete(s.events, x.key)
	}
	s.gen++
}

// Prune forgets what is older than the lookback at now.
func (s *Store) Prune(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	horizon := now.Add(-s.lookback)
	for k, ev := range s.events {
		if ev.At.Before(horizon) {
			delete(s.events, k)
			s.gen++
		}
	}
	for k, c := range s.cumulative {
		if c.At.Before(horizon) {
			delete(s.cumulative, k)
			s.gen++
		}
	}
	live := map[sessionID]bool{}
	for _, ev := range s.events {
		live[sessionID{ev.Provider, ev.Session}] = true
	}
	maps.DeleteFunc(s.fromLogs, func(k sessionID, _ bool) bool { return !live[k] })
	maps.DeleteFunc(s.fromMetrics, func(k sessionID, _ bool) bool { return !live[k] })
}

// Events is every event held, oldest first.
func (s *Store) Events() []burn.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Values(s.events))
	slices.SortFunc(out, func(a, b burn.Event) int { return a.At.Compare(b.At) })
	return out
}

// Len is how many events the store holds.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// storeFile is the JSON form of a Store.
type storeFile struct {
	Version    int                        `json:"version"`
	Events     []storedEvent              `json:"events"`
	Cumulative map[string]cumulativeState `json:"cumulative,omitempty"`
}

// storedEvent is an event as the file keeps it.
type storedEvent struct {
	Provider      burn.Provider `json:"provider"`
	Session       string        `json:"session"`
	Project       string        `json:"project,omitempty"`
	Model         string        `json:"model,omitempty"`
	Host          string        `json:"host"`
	At            time.Time     `json:"at"`
	TurnStart     time.Time     `json:"turn_start,omitzero"`
	Key           string        `json:"key"`
	Input         int64         `json:"input"`
	Output        int64         `json:"output"`
	CacheCreation int64         `json:"cache_creation"`
	CacheRead     int64         `json:"cache_read"`
}

// Save writes the store to dir/StoreName when it changed since the last
// save.
func (s *Store) Save(dir string) error {
	s.mu.Lock()
	if s.gen == s.saved {
		s.mu.Unlock()
		return nil
	}
	f := storeFile{Version: 1, Cumulative: maps.Clone(s.cumulative)}
	for _, ev := range s.events {
		f.Events = append(f.Events, storedEvent{
			Provider: ev.Provider, Session: ev.Session, Project: ev.Project, Model: ev.Model, Host: ev.Host,
			At: ev.At, TurnStart: ev.TurnStart, Key: ev.Key,
			Input: ev.Tokens.Input, Output: ev.Tokens.Output, CacheCreation: ev.Tokens.CacheCreation, CacheRead: ev.Tokens.CacheRead,
		})
	}
	gen := s.gen
	s.mu.Unlock()
	slices.SortFunc(f.Events, func(a, b storedEvent) int { return a.At.Compare(b.At) })
	if _, err := statedir.Ensure(dir); err != nil {
		return err
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, StoreName), f); err != nil {
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
	events, cumulative, err := readFile(dir, s.weight)
	if err != nil {
		return err
	}
	s.mu.Lock()
	horizon := now.Add(-s.lookback)
	for _, ev := range events {
		if strings.HasPrefix(ev.Key, keyLog) {
			s.fromLogs[sessionID{ev.Provider, ev.Session}] = true
		} else {
			s.fromMetrics[sessionID{ev.Provider, ev.Session}] = true
		}
		s.put(ev, horizon)
	}
	maps.Copy(s.cumulative, cumulative)
	s.saved = s.gen
	s.mu.Unlock()
	return nil
}

// maxStoreBytes bounds what is read of the store: its 200,000 events at
// about 300 bytes each, with room to spare.
const maxStoreBytes = 256 << 20

// ReadEvents is the remote events the serving process saved in dir; none
// and no error when it never saved any.
func ReadEvents(dir string, weight float64) ([]burn.Event, error) {
	events, _, err := readFile(dir, weight)
	return events, err
}

func readFile(dir string, weight float64) ([]burn.Event, map[string]cumulativeState, error) {
	// The state folder's rules: no link followed, another user's file
	// refused (it would feed runway someone else's sessions).
	b, err := statedir.ReadFile(filepath.Join(dir, StoreName), maxStoreBytes)
	// A state folder that is a file holds no remote sessions; the state
	// folder's own warning already says what to do, once.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("remote sessions: %w", err)
	}
	var f storeFile
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		return nil, nil, fmt.Errorf("remote sessions: %s is damaged (runway serve rewrites it; delete it to start afresh)", filepath.Join(dir, StoreName))
	}
	out := make([]burn.Event, 0, len(f.Events))
	for _, e := range f.Events {
		tok := burn.Tokens{Input: e.Input, Output: e.Output, CacheCreation: e.CacheCreation, CacheRead: e.CacheRead}
		if e.Session == "" || e.At.IsZero() || min(tok.Input, tok.Output, tok.CacheCreation, tok.CacheRead) < 0 {
			continue
		}
		out = append(out, burn.Event{
			Provider: e.Provider, Session: clean(e.Session), Project: clean(e.Project), Model: clean(e.Model), Host: clean(e.Host),
			At: e.At, TurnStart: e.TurnStart, Key: e.Key,
			Tokens: tok, Weighted: tok.Weighted(weight), Final: true,
		})
	}
	return out, f.Cumulative, nil
}
