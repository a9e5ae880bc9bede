package burn

import (
	"math"
	"testing"
	"time"
)

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
		{used: 1, minutes: -5, def: 300, ok: true, pct: 1, wantMinutes: 300, window: FiveHour},      // negative
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
