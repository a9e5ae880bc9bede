package burn

import (
	"math"
	"testing"
	"time"
)

// statuslineEvery is a 0.1 % statusline read every step from t0 to end at
// used(d) percent, of a window of minutes resetting at reset.
func statuslineEvery(minutes int, step, end time.Duration, reset time.Time, used func(d time.Duration) float64) []Sample {
	var out []Sample
	for d := time.Duration(0); d <= end; d += step {
		out = append(out, smp(Claude, minutes, math.Floor(used(d)*10)/10, reset, at(d), SourceStatusline))
	}
	return out
}

// The residual sums the local tokens interval by interval; it must equal
// the percent minus what the tokens since the first point cost, so burn
// elsewhere that starts at 20 min is found there, at its own pace.
func TestUnexplainedFindsBurnElsewhereStarting(t *testing.T) {
	const perToken = 1e-4 // percent per weighted token
	events := steady(Claude, "a", "claude", at(0), at(40*time.Minute), 5*time.Second, 10)
	samples := statuslineEvery(300, 30*time.Second, 40*time.Minute, at(3*time.Hour), func(d time.Duration) float64 {
		return 10 + perToken*10*d.Seconds() + 0.003*max(d-20*time.Minute, 0).Seconds()
	})
	r, ok := unexplained(samples, SourceStatusline, tokensOf(events), perToken, 300, DefaultConfig())
	if !ok || !r.rising {
		t.Fatalf("unexplained = %+v, %v; want a rising residual", r, ok)
	}
	if d := r.since.Sub(at(20 * time.Minute)); d < -2*time.Minute || d > 2*time.Minute {
		t.Errorf("since = %v, want about 20 min", r.since.Sub(t0))
	}
	near(t, "local tokens/s", r.local, 10, 0.5)
	near(t, "percent/s since the change", r.pps, 0.004, 0.0004)
}

// A statusline polled every 5 s over the hour unexplained reads, beside
// sessions writing every second: each event is summed once.
func BenchmarkUnexplained(b *testing.B) {
	events := steady(Claude, "a", "claude", at(0), at(time.Hour), time.Second, 10)
	samples := statuslineEvery(300, 5*time.Second, time.Hour, at(3*time.Hour), func(d time.Duration) float64 { return 10 + 1e-3*d.Seconds() })
	cfg := DefaultConfig()
	for b.Loop() {
		unexplained(samples, SourceStatusline, tokensOf(events), 1e-4, 300, cfg)
	}
}

// Burn elsewhere that stops, at a ratio learned while it burned: the
// percent falls behind what the tokens cost, a residual that falls.
func TestUnexplainedFindsBurnElsewhereStopping(t *testing.T) {
	events := steady(Claude, "a", "claude", at(0), at(40*time.Minute), 5*time.Second, 10)
	samples := statuslineEvery(300, 30*time.Second, 40*time.Minute, at(3*time.Hour), func(d time.Duration) float64 {
		return 10 + 1e-3*d.Seconds() + 0.003*min(d, 20*time.Minute).Seconds()
	})
	r, ok := unexplained(samples, SourceStatusline, tokensOf(events), 4e-4, 300, DefaultConfig())
	if !ok || r.rising {
		t.Fatalf("unexplained = %+v, %v; want a falling residual", r, ok)
	}
	near(t, "percent/s since the change", r.pps, 0.001, 0.0002)
}

// A weekly window reads its residual over the span its velocity reads
// (the horizon scaled by the window's length), not a 5-hour window's hour:
// burn elsewhere that started two hours ago is found where it started.
func TestUnexplainedWeeklySpan(t *testing.T) {
	const perToken = 1e-4
	events := steady(Claude, "a", "claude", at(0), at(4*time.Hour), 10*time.Second, 1)
	samples := statuslineEvery(10080, 5*time.Minute, 4*time.Hour, at(72*time.Hour), func(d time.Duration) float64 {
		return 10 + perToken*1*d.Seconds() + 3e-4*max(d-2*time.Hour, 0).Seconds()
	})
	r, ok := unexplained(samples, SourceStatusline, tokensOf(events), perToken, 10080, DefaultConfig())
	if !ok || !r.rising {
		t.Fatalf("unexplained = %+v, %v; want a rising residual", r, ok)
	}
	if d := r.since.Sub(at(2 * time.Hour)); d < -15*time.Minute || d > 15*time.Minute {
		t.Errorf("since = %v, want about 2 h", r.since.Sub(t0))
	}
}
