package burn

import (
	"fmt"
	"testing"
	"time"
)

// benchInput is a busy day: 20 sessions writing a response every 10 s for
// the 6 hours the caller looks back, a statusline sample every 5 s, and a
// week of runway's sample log at one sample a minute.
func benchInput() Input {
	now := at(7 * 24 * time.Hour)
	in := Input{Now: now}
	for i := range 20 {
		p := providers[i%2]
		in.Events = append(in.Events, steady(p, fmt.Sprint("s", i), "", now.Add(-6*time.Hour), now, 10*time.Second, float64(100+i*50))...)
	}
	for _, p := range providers {
		for t := now.Add(-7 * 24 * time.Hour); !t.After(now); t = t.Add(time.Minute) {
			in.Samples = append(in.Samples, smp(p, 10080, 50, now.Add(24*time.Hour), t, SourceOAuth))
		}
		for t := now.Add(-6 * time.Hour); !t.After(now); t = t.Add(5 * time.Second) {
			reset := now.Add(2 * time.Hour)
			if t.Before(now.Add(-3 * time.Hour)) {
				reset = now.Add(-3 * time.Hour)
			}
			in.Samples = append(in.Samples, smp(p, 300, float64(int(t.Sub(now.Add(-6*time.Hour)).Seconds()/100)%100)/1.0, reset, t, SourceStatusline))
		}
	}
	return in
}

func BenchmarkCompute(b *testing.B) {
	in := benchInput()
	b.ReportMetric(float64(len(in.Events)), "events")
	b.ReportMetric(float64(len(in.Samples)), "samples")
	for b.Loop() {
		Compute(in, DefaultConfig())
	}
}

func BenchmarkDecide(b *testing.B) {
	s := Compute(exampleInput(), DefaultConfig())
	_, mem := Decide(s, NoticeMemory{}, DefaultConfig())
	for b.Loop() {
		Decide(s, mem, DefaultConfig())
	}
}
