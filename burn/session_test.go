package burn

import (
	"strings"
	"testing"
	"time"
)

func TestSessionRates(t *testing.T) {
	turn := func(e Event, start time.Time) Event { e.TurnStart = start; return e }
	sub := func(e Event, agent string) Event { e.Agent = agent; return e }
	a60 := func() []Event { return steady(Claude, "a", "", at(0), at(60*time.Second), 10*time.Second, 300) }
	// Ten minutes at 300 tokens/s, the turn ended or not, then 24 minutes away.
	tenMinutes := func(ended bool) []Event {
		ev := steady(Claude, "a", "", at(0), at(10*time.Minute), 10*time.Second, 300)
		if ended {
			return endTurn(ev)
		}
		return ev
	}
	resumed := func(start time.Time) []Event {
		return []Event{
			turn(use(Claude, "a", at(34*time.Minute), 18_000), start),
			use(Claude, "a", at(34*time.Minute+18*time.Second), 18_000),
			use(Claude, "a", at(34*time.Minute+36*time.Second), 18_000),
			use(Claude, "a", at(34*time.Minute+55*time.Second), 18_000),
		}
	}
	ended := func(at time.Time) []Activity {
		return []Activity{{Provider: Claude, Session: "a", At: at, TurnEnded: true}}
	}
	seen := []Activity{{Provider: Claude, Session: "a", At: at(80 * time.Second)}}
	// One table, one check: each case is a set of events and what each session counts.
	tests := []struct {
		name     string
		now      time.Time
		events   []Event
		activity []Activity
		want     map[string]float64 // session → tokens/s
		kind     map[string]RateKind
		cfg      func(*Config)
	}{
		// Reference case: (2,000 + 3,000) / 60 s.
		{name: "burst rate excludes the earliest event", now: at(65 * time.Second),
			events: []Event{use(Claude, "a", at(0), 1000), use(Claude, "a", at(30*time.Second), 2000), use(Claude, "a", at(60*time.Second), 3000)},
			want:   map[string]float64{"a": 5000.0 / 60}, kind: map[string]RateKind{"a": Measured}},
		// Reference case: a cache-heavy first turn next to a measured peer.
		{name: "provisional first turn capped at the largest measured peer", now: at(100 * time.Second),
			events: append(steady(Claude, "peer", "", at(0), at(100*time.Second), 10*time.Second, 800),
				turn(use(Claude, "new", at(99*time.Second), 100_000), at(97*time.Second))),
			want: map[string]float64{"peer": 800, "new": 800}, kind: map[string]RateKind{"peer": Measured, "new": Provisional}},
		{name: "provisional uncapped without a measured peer", now: at(10 * time.Second),
			events: []Event{turn(use(Claude, "new", at(10*time.Second), 1000), at(0))},
			want:   map[string]float64{"new": 100}, kind: map[string]RateKind{"new": Provisional}},
		{name: "a turn shorter than 2 s gives no provisional rate", now: at(10 * time.Second),
			events: []Event{turn(use(Claude, "new", at(10*time.Second), 1000), at(9*time.Second))},
			want:   map[string]float64{"new": 0}, kind: map[string]RateKind{"new": Waiting}},
		{name: "a turn longer than 120 s gives no provisional rate", now: at(200 * time.Second),
			events: []Event{turn(use(Claude, "new", at(200*time.Second), 1000), at(0))},
			want:   map[string]float64{"new": 0}, kind: map[string]RateKind{"new": Waiting}},
		{name: "a subagent's provisional rate is capped by its parent's measured rate", now: at(60 * time.Second),
			events: append(a60(), turn(sub(use(Claude, "a", at(58*time.Second), 20_000), "agent1"), at(54*time.Second))),
			want:   map[string]float64{"a": 300 + 300}, kind: map[string]RateKind{"a": Measured}},
		{name: "subagent streams are measured apart and summed", now: at(60 * time.Second),
			events: append(a60(), steady(Claude, "a", "agent1", at(5*time.Second), at(55*time.Second), 10*time.Second, 200)...),
			want:   map[string]float64{"a": 500}, kind: map[string]RateKind{"a": Measured}},
		// Four responses in 55 s after the pause: their pace, (3 × 18,000) /
		// 55 s, not 72,000 tokens over the pause (under the 30-minute gap).
		{name: "a session resuming after a pause has the pace since", now: at(34*time.Minute + 56*time.Second),
			events: append(tenMinutes(true), resumed(at(33*time.Minute+55*time.Second))...),
			want:   map[string]float64{"a": 3 * 18_000 / 55.0}, kind: map[string]RateKind{"a": Measured}},
		// Its first response alone: the rate of its turn, from the prompt.
		{name: "the first response after a pause has its turn's rate", now: at(34*time.Minute + 1*time.Second),
			events: append(tenMinutes(true), turn(use(Claude, "a", at(34*time.Minute), 18_000), at(33*time.Minute+50*time.Second))),
			want:   map[string]float64{"a": 18_000 / 10.0}, kind: map[string]RateKind{"a": Provisional}},
		// The same gap after a tool call (a 24-minute build): the burst spans it.
		{name: "a long tool run stays in the burst", now: at(34*time.Minute + 56*time.Second),
			events: append(tenMinutes(false), resumed(time.Time{})...),
			want:   map[string]float64{"a": 4 * 18_000 / (24*60 + 55.0)}, kind: map[string]RateKind{"a": Measured}},
		// Away for less than BurstGapAfterTurn: one burst, every event after the first.
		{name: "a short wait for the user stays in the burst", now: at(14*time.Minute + 31*time.Second),
			events: append(tenMinutes(true), use(Claude, "a", at(14*time.Minute), 9_000), use(Claude, "a", at(14*time.Minute+30*time.Second), 9_000)),
			want:   map[string]float64{"a": (60*3000 + 2*9_000) / (14*60 + 30.0)}, kind: map[string]RateKind{"a": Measured}},
		{name: "stale rate with recent activity is waiting", now: at(91 * time.Second), events: a60(), activity: seen,
			want: map[string]float64{"a": 0}, kind: map[string]RateKind{"a": Waiting}, cfg: func(c *Config) { c.WaitingShare = false }},
		{name: "a waiting session keeps its rate over the time up to now", now: at(91 * time.Second), events: a60(), activity: seen,
			want: map[string]float64{"a": 300 * 60 / 91.0}, kind: map[string]RateKind{"a": Waiting}},
		{name: "an event 30 s old still counts", now: at(90 * time.Second), events: a60(),
			want: map[string]float64{"a": 300}, kind: map[string]RateKind{"a": Measured}},
		{name: "waiting up to 75 s after the newest line", now: at(135 * time.Second), events: a60(), kind: map[string]RateKind{"a": Waiting}},
		{name: "idle after 75 s, without a rate", now: at(136 * time.Second), events: a60(),
			want: map[string]float64{"a": 0}, kind: map[string]RateKind{"a": Idle}},
		// A turn's end is a pause while the user's pauses usually last
		// (PauseDefault until learned), then a stop.
		{name: "idle once the pause outlasts the usual one", now: at(121 * time.Second), events: a60(),
			activity: ended(at(60 * time.Second)), kind: map[string]RateKind{"a": Idle}},
		{name: "waiting within 45 s after the turn ended", now: at(104 * time.Second), events: a60(),
			activity: ended(at(60 * time.Second)), kind: map[string]RateKind{"a": Waiting}},
		{name: "a gap over 30 min starts a new burst", now: at(time.Hour + 20*time.Second),
			events: []Event{use(Claude, "a", at(0), 1_000_000), use(Claude, "a", at(time.Hour), 100), use(Claude, "a", at(time.Hour+20*time.Second), 2000)},
			want:   map[string]float64{"a": 100}},
		{name: "events more than 5 s in the future are dropped", now: at(60 * time.Second),
			events: append(a60(), use(Claude, "a", at(66*time.Second), 1_000_000)), want: map[string]float64{"a": 300}},
		{name: "events up to 5 s in the future are kept", now: at(60 * time.Second),
			events: append(a60(), use(Claude, "a", at(65*time.Second), 1500)), want: map[string]float64{"a": (6*3000 + 1500) / 65.0}},
		{name: "the horizon bounds the burst", now: at(40 * time.Minute),
			events: append(steady(Claude, "a", "", at(0), at(20*time.Minute), 10*time.Second, 1000),
				steady(Claude, "a", "", at(20*time.Minute+10*time.Second), at(40*time.Minute), 10*time.Second, 100)...),
			want: map[string]float64{"a": 100}},
		{name: "without a horizon the whole burst counts, as the reference", now: at(40 * time.Minute),
			events: append(steady(Claude, "a", "", at(0), at(20*time.Minute), 10*time.Second, 1000),
				steady(Claude, "a", "", at(20*time.Minute+10*time.Second), at(40*time.Minute), 10*time.Second, 100)...),
			want: map[string]float64{"a": 550}, cfg: func(c *Config) { c.SessionHorizon = -1 }},
		{name: "streamed copies of one response count once", now: at(60 * time.Second),
			events: func() []Event {
				ev := a60()
				dup := ev[len(ev)-1]
				for i := range ev {
					ev[i].Key = strings.Repeat("k", i+1)
				}
				dup.Key, dup.Weighted, dup.Final = ev[len(ev)-1].Key, 1, false
				return append(ev, dup)
			}(),
			want: map[string]float64{"a": 300}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			s := Compute(Input{Now: tt.now, Events: tt.events, Activity: tt.activity}, cfg)
			for id, want := range tt.want {
				x := sessionByID(s, id)
				if x == nil {
					t.Fatalf("session %s not listed: %+v", id, s.Sessions)
				}
				near(t, id+" tokens/s", x.TokensPerS, want, 1e-6*max(want, 1))
			}
			for id, want := range tt.kind {
				x := sessionByID(s, id)
				if x == nil {
					t.Fatalf("session %s not listed", id)
				}
				if x.RateKind != want {
					t.Errorf("%s rate kind = %s, want %s", id, x.RateKind, want)
				}
			}
		})
	}
}

func TestFutureWarning(t *testing.T) {
	s := Compute(Input{Now: t0, Events: []Event{use(Claude, "a", at(time.Minute), 1)}, Warnings: []string{"tail: x"}}, DefaultConfig())
	if len(s.Warnings) != 2 || s.Warnings[0] != "tail: x" || !strings.Contains(s.Warnings[1], "1 usage events") {
		t.Fatalf("warnings = %q", s.Warnings)
	}
	if len(s.Sessions) != 0 {
		t.Fatalf("a future event listed a session: %+v", s.Sessions)
	}
}

func TestSessionListing(t *testing.T) {
	now := at(5 * time.Hour)
	reset := now.Add(time.Hour) // the window opened at t0+1h
	in := Input{
		Now: now,
		Samples: []Sample{
			smp(Claude, 300, 40, reset, now.Add(-30*time.Second), SourceStatusline),
		},
		Events: []Event{
			use(Claude, "before-window", at(30*time.Minute), 100),
			use(Claude, "in-window", at(2*time.Hour), 100),
			use(Claude, "in-window", at(2*time.Hour+time.Minute), 100),
		},
		Activity: []Activity{
			{Provider: Claude, Session: "just-started", At: now.Add(-10 * time.Second)},
			{Provider: Claude, Session: "long-gone", At: at(10 * time.Minute)},
		},
	}
	s := Compute(in, DefaultConfig())
	got := map[string]RateKind{}
	for _, x := range s.Sessions {
		got[x.ID] = x.RateKind
	}
	want := map[string]RateKind{"in-window": Idle, "just-started": Waiting}
	if len(got) != len(want) || got["in-window"] != Idle || got["just-started"] != Waiting {
		t.Fatalf("sessions = %v, want %v", got, want)
	}
	if x := sessionByID(s, "just-started"); !x.LastEventAt.Equal(now.Add(-10 * time.Second)) {
		t.Errorf("an activity-only session's last_event_at = %v", x.LastEventAt)
	}
}

func TestAgentsCount(t *testing.T) {
	now := at(60 * time.Second)
	ev := steady(Claude, "a", "", at(0), now, 10*time.Second, 100)
	ev = append(ev, steady(Claude, "a", "x", at(0), now, 10*time.Second, 100)...)
	ev = append(ev, steady(Claude, "a", "y", at(0), at(20*time.Second), 10*time.Second, 100)...)
	ev = append(ev, use(Claude, "a", now.Add(-100*time.Second), 1)) // old, main thread
	old := use(Claude, "a", now.Add(-100*time.Second), 1)
	old.Agent = "z"
	ev = append(ev, old)
	s := Compute(Input{Now: now, Events: ev}, DefaultConfig())
	if x := sessionByID(s, "a"); x.Agents != 2 {
		t.Fatalf("agents = %d, want 2 (x and y, not z)", x.Agents)
	}
}
