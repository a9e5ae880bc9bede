package burn

import (
	"math"
	"testing"
	"time"
)

func TestCleanSample(t *testing.T) {
	obs := time.Date(2026, 11, 20, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	reset := obs.Add(3 * time.Hour)
	good := Sample{ObservedAt: obs, Provider: Claude, Window: FiveHour, WindowMinutes: 300, UsedPercent: 42, ResetsAt: reset, Source: SourceStatusline}
	// One table: each case edits a good sample.
	tests := []struct {
		name string
		edit func(s *Sample)
		ok   bool
		want func(s *Sample) // the cleaned sample, from good
	}{
		{name: "as is", ok: true},
		{name: "NaN", edit: func(s *Sample) { s.UsedPercent = math.NaN() }},
		{name: "negative", edit: func(s *Sample) { s.UsedPercent = -0.1 }},
		{name: "zero percent", edit: func(s *Sample) { s.UsedPercent = 0 }, ok: true, want: func(s *Sample) { s.UsedPercent = 0 }},
		{name: "over 100", edit: func(s *Sample) { s.UsedPercent = 105 }, ok: true, want: func(s *Sample) { s.UsedPercent = 100 }},
		{name: "at the bound", edit: func(s *Sample) { s.UsedPercent = MaxUsedPercent }, ok: true, want: func(s *Sample) { s.UsedPercent = 100 }},
		{name: "damaged, over the bound", edit: func(s *Sample) { s.UsedPercent = 150 }},
		{name: "no time", edit: func(s *Sample) { s.ObservedAt = time.Time{} }},
		{name: "unknown provider", edit: func(s *Sample) { s.Provider = "gemini" }},
		{name: "unknown source", edit: func(s *Sample) { s.Source = "\xd2" }},
		{name: "no window", edit: func(s *Sample) { s.Window, s.WindowMinutes = "", 0 }},
		{name: "negative length", edit: func(s *Sample) { s.Window, s.WindowMinutes = "", -300 }},
		{name: "a window longer than a month", edit: func(s *Sample) { s.WindowMinutes = 32 * 1440 }},
		{
			name: "length 0 takes the class's default", edit: func(s *Sample) { s.WindowMinutes = 0 }, ok: true,
		},
		{
			name: "weekly, length 0", edit: func(s *Sample) { s.Window, s.WindowMinutes, s.ResetsAt = Weekly, 0, obs.Add(48*time.Hour) }, ok: true,
			want: func(s *Sample) { s.Window, s.WindowMinutes, s.ResetsAt = Weekly, 10080, obs.Add(48*time.Hour) },
		},
		{
			// Plans without a 5-hour window put the weekly one in "primary".
			name: "the length classifies", edit: func(s *Sample) { s.Window, s.WindowMinutes, s.ResetsAt = FiveHour, 10080, obs.Add(48*time.Hour) }, ok: true,
			want: func(s *Sample) { s.Window, s.WindowMinutes, s.ResetsAt = Weekly, 10080, obs.Add(48*time.Hour) },
		},
		{
			name: "a reset a window before the observation", edit: func(s *Sample) { s.ResetsAt = obs.Add(-5*time.Hour - time.Second) }, ok: true,
			want: func(s *Sample) { s.ResetsAt = time.Time{} },
		},
		{
			// Over since it was observed: the model says so (reset, no data).
			name: "a reset just before the observation", edit: func(s *Sample) { s.ResetsAt = obs.Add(-time.Minute) }, ok: true,
			want: func(s *Sample) { s.ResetsAt = obs.Add(-time.Minute) },
		},
		{
			name: "a reset further ahead than the window is long", edit: func(s *Sample) { s.ResetsAt = obs.Add(300 * 24 * time.Hour) }, ok: true,
			want: func(s *Sample) { s.ResetsAt = time.Time{} },
		},
		{
			name: "a reset rounded up to the hour", edit: func(s *Sample) { s.ResetsAt = obs.Add(5*time.Hour + 59*time.Minute) }, ok: true,
			want: func(s *Sample) { s.ResetsAt = obs.Add(5*time.Hour + 59*time.Minute) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := good
			if tt.edit != nil {
				tt.edit(&in)
			}
			got, ok := CleanSample(in)
			if ok != tt.ok {
				t.Fatalf("CleanSample(%+v) ok = %v", in, ok)
			}
			if !ok {
				if got != (Sample{}) {
					t.Errorf("unusable sample returned as %+v", got)
				}
				return
			}
			want := good
			if tt.want != nil {
				tt.want(&want)
			}
			want.ObservedAt = want.ObservedAt.UTC()
			if !want.ResetsAt.IsZero() {
				want.ResetsAt = want.ResetsAt.UTC()
			}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if again, ok := CleanSample(got); !ok || again != got {
				t.Errorf("cleaning twice changes it: %+v", again)
			}
		})
	}
}

// TestComputeCleansSamples: what CleanSample rejects never reaches a figure.
func TestComputeCleansSamples(t *testing.T) {
	now := at(time.Hour)
	reset := now.Add(2 * time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Claude, 300, 40, reset, now.Add(-2*time.Minute), SourceCodexLog),
		smp(Claude, 300, -30, reset, now.Add(-time.Minute), SourceCodexLog),
		smp(Claude, 300, math.NaN(), reset, now, SourceCodexLog),
		smp("gemini", 300, 99, reset, now, SourceCodexLog),
		smp(Codex, 300, 12, reset, now.Add(-time.Minute), SourceCodexLog),
		smp(Codex, 300, 105, reset, now.Add(-30*time.Second), SourceCodexRPC),
		smp(Codex, 300, 250, reset, now, SourceCodexLog),
	}}, DefaultConfig())
	p := mustProvider(t, s, Claude)
	if p.Window.UsedPercent != 40 || !p.Window.ObservedAt.Equal(now.Add(-2*time.Minute)) {
		t.Errorf("claude shows %+v, want the 40 %% sample", p.Window)
	}
	// 105 % is an older build's way to say "used up"; 250 % is damage,
	// not a verdict that would stop an orchestrator.
	if c := mustProvider(t, s, Codex); c.Window.UsedPercent != 100 || c.State != Exhausted || c.Window.Source != SourceCodexRPC {
		t.Errorf("codex shows %v %% from %s, %s; want the 105 %% sample as 100 %%, exhausted", c.Window.UsedPercent, c.Window.Source, c.State)
	}
	if len(s.Providers) != 2 {
		t.Errorf("providers %+v", s.Providers)
	}
}

// One rule for a window as any source writes it: the percent's range, the
// length's bounds and the slot's default.
func TestNewSample(t *testing.T) {
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		used, minutes float64
		def           int
		ok            bool
		pct           float64
		wantMinutes   int
		window        WindowClass
	}{
		{used: 42, minutes: 300, def: 10080, ok: true, pct: 42, wantMinutes: 300, window: FiveHour},
		{used: 105, minutes: 10080, def: 300, ok: true, pct: 100, wantMinutes: 10080, window: Weekly},
		{used: 0, minutes: 0, def: 300, ok: true, pct: 0, wantMinutes: 300, window: FiveHour},       // no length: the slot's
		{used: 1, minutes: 0.5, def: 10080, ok: true, pct: 1, wantMinutes: 10080, window: Weekly},   // under a minute
		{used: 1, minutes: 299.9, def: 10080, ok: true, pct: 1, wantMinutes: 299, window: FiveHour}, // whole minutes
		{used: 1, minutes: 1e7, def: 300, ok: true, pct: 1, wantMinutes: 1e7, window: Weekly},       // kept: CleanSample refuses it
		{used: 1, minutes: 1 << 31, def: 300, ok: true, pct: 1, wantMinutes: 300, window: FiveHour}, // past an int32
		{used: 1, minutes: math.NaN(), def: 300, ok: true, pct: 1, wantMinutes: 300, window: FiveHour},
		{used: MaxUsedPercent + 0.1, minutes: 300, def: 300},
		{used: -0.1, minutes: 300, def: 300},
		{used: math.NaN(), minutes: 300, def: 300},
	}
	for _, tt := range tests {
		s, ok := NewSample(Codex, SourceCodexLog, at, tt.used, tt.minutes, tt.def, time.Time{})
		if ok != tt.ok {
			t.Errorf("NewSample(used %v, minutes %v): ok %v, want %v", tt.used, tt.minutes, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if s.UsedPercent != tt.pct || s.WindowMinutes != tt.wantMinutes || s.Window != tt.window ||
			s.ObservedAt.Location() != time.UTC || !s.ObservedAt.Equal(at) || s.Provider != Codex || s.Source != SourceCodexLog {
			t.Errorf("NewSample(used %v, minutes %v, def %d) = %+v", tt.used, tt.minutes, tt.def, s)
		}
	}
	long, _ := NewSample(Codex, SourceCodexLog, at, 1, 1e7, 300, time.Time{})
	if _, ok := CleanSample(long); ok {
		t.Error("a window past a month is kept by CleanSample")
	}
}
