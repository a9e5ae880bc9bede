package burn

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

func at(d time.Duration) time.Time { return t0.Add(d) }

// use is a usage event of weighted tokens w at t.
func use(p Provider, session string, t time.Time, w float64) Event {
	return Event{Provider: p, Session: session, Project: "/src/" + session, Model: "m", At: t, Weighted: w, Final: true}
}

// tokensOf is the tokens of events as the account arithmetic reads them
// (providerSessions.events): in SortEvents' order.
func tokensOf(events []Event) []tokenAt {
	evs := slices.Clone(events)
	SortEvents(evs)
	out := make([]tokenAt, len(evs))
	for i, e := range evs {
		out[i] = tokenAt{e.At, e.Weighted}
	}
	return out
}

// endTurn is evs with the last one the response that ended its turn.
func endTurn(evs []Event) []Event {
	evs[len(evs)-1].EndsTurn = true
	return evs
}

// steady is a session's events every step from..to at rate tokens/s.
func steady(p Provider, session, agent string, from, to time.Time, step time.Duration, rate float64) []Event {
	var out []Event
	for t := from; !t.After(to); t = t.Add(step) {
		e := use(p, session, t, rate*step.Seconds())
		e.Agent = agent
		e.TurnStart = t.Add(-step)
		out = append(out, e)
	}
	return out
}

func smp(p Provider, minutes int, used float64, reset, observed time.Time, src Source) Sample {
	return Sample{ObservedAt: observed, Provider: p, Window: ClassOf(minutes), WindowMinutes: minutes, UsedPercent: used, ResetsAt: reset, Source: src}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

func sessionByID(s Snapshot, id string) *SessionStatus {
	for i := range s.Sessions {
		if s.Sessions[i].ID == id {
			return &s.Sessions[i]
		}
	}
	return nil
}

func mustProvider(t *testing.T, s Snapshot, p Provider) ProviderStatus {
	t.Helper()
	ps := s.Provider(p)
	if ps == nil {
		t.Fatalf("no %s in snapshot: %+v", p, s.Providers)
	}
	return *ps
}

// mhPPS is the percent per second of m quota minutes per hour of a window.
func mhPPS(m float64, windowMinutes int) float64 {
	return m * 100 / (float64(windowMinutes) * 3600)
}

// fataler is what the round trip needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// roundTrip encodes s, decodes it and encodes it again. The JSON form is
// rounded for people; what is read back must write the same bytes.
func roundTrip(t fataler, s Snapshot) Snapshot {
	t.Helper()
	once, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back Snapshot
	if err := json.Unmarshal(once, &back); err != nil {
		t.Fatalf("unmarshal our own: %v\n%s", err, once)
	}
	if twice, err := json.Marshal(back); err != nil || string(twice) != string(once) {
		t.Fatalf("round trip differs:\n%s\n%s", once, twice)
	}
	return back
}
