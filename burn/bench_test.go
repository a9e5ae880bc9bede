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

// fullStoreInput is what runway serve computes over with a full store:
// 2,500 sessions that wrote 100,000 responses over the last 5 minutes, in
// time order as the store hands them over, and a live 5-hour window.
func fullStoreInput() Input {
	now := at(7 * 24 * time.Hour)
	in := Input{Now: now}
	for k := range 40 {
		for i := range 2500 {
			t := now.Add(-5*time.Minute + time.Duration(k*2500+i)*3*time.Millisecond)
			e := use(providers[i%2], fmt.Sprint("s", i), t, 500)
			e.Key = fmt.Sprint("k", i, "-", k)
			e.TurnStart = t.Add(-7 * time.Second)
			in.Events = append(in.Events, e)
		}
	}
	for _, p := range providers {
		for t := now.Add(-10 * time.Minute); !t.After(now); t = t.Add(30 * time.Second) {
			in.Samples = append(in.Samples, smp(p, 300, 20+float64(t.Sub(now)/time.Minute), now.Add(2*time.Hour), t, SourceStatusline))
		}
	}
	return in
}

func BenchmarkCompute(b *testing.B) {
	for _, c := range []struct {
		name string
		in   Input
	}{{"busy-day", benchInput()}, {"full-store", fullStoreInput()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(c.in.Events)), "events")
			b.ReportMetric(float64(len(c.in.Samples)), "samples")
			for b.Loop() {
				Compute(c.in, DefaultConfig())
			}
		})
	}
}

func BenchmarkDecide(b *testing.B) {
	s := Compute(exampleInput(), DefaultConfig())
	_, mem := Decide(s, NoticeMemory{}, DefaultConfig())
	for b.Loop() {
		Decide(s, mem, DefaultConfig())
	}
}
