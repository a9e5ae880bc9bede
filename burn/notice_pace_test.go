package burn

import (
	"testing"
	"time"
)

// After a slow period the statusline is fed +1 % every 32 s (about 337 m/h):
// the first burning-fast notice goes out within two minutes, near the true run-out.
func TestNoticeFollowsPaceChange(t *testing.T) {
	reset := at(3 * time.Hour)
	change := at(0)
	var samples []Sample
	// 20 m/h for 40 minutes: 0.0667 % a minute, from 57.3 %.
	slow := mhPPS(20, 300)
	used := 60.0
	for d := -40 * time.Minute; d < 0; d += 32 * time.Second {
		u := used + slow*d.Seconds()
		samples = append(samples, smp(Claude, 300, float64(int(u*10))/10, reset, at(d), SourceStatusline))
	}
	fast := 1.0 / 32 // percent per second
	trueRunout := change.Add(sec((100 - used) / fast))
	for d := 32 * time.Second; at(d).Before(trueRunout); d += 32 * time.Second {
		samples = append(samples, smp(Claude, 300, used+float64(d/(32*time.Second)), reset, at(d), SourceStatusline))
	}

	cfg := DefaultConfig()
	mem := NoticeMemory{}
	var first *Notice
	var firstAt time.Time
	var sentBuckets []int
	for d := -10 * time.Minute; d <= 15*time.Minute && at(d).Before(trueRunout); d += 10 * time.Second {
		now := at(d)
		var in []Sample
		for _, s := range samples {
			if !s.ObservedAt.After(now) {
				in = append(in, s)
			}
		}
		snap := Compute(Input{Now: now, Samples: in}, cfg)
		var out []Notice
		out, mem = Decide(snap, mem, cfg)
		for _, n := range out {
			if n.Kind != NoticeBurningFast {
				continue
			}
			sentBuckets = append(sentBuckets, n.UrgencyMinutes)
			left := trueRunout.Sub(now).Minutes()
			if n.RunoutAt == nil {
				t.Fatalf("+%v: a burning-fast notice without a run-out", d)
			}
			// The bucket is the one the true run-out is in: never "60
			// minutes" with 20 left.
			if float64(n.UrgencyMinutes) < left || n.UrgencyMinutes > 10 && float64(n.UrgencyMinutes) > 2*left+10 {
				t.Errorf("+%v: bucket %d with %.0f min truly left", d, n.UrgencyMinutes, left)
			}
			if off := n.RunoutAt.Sub(trueRunout); off > 3*time.Minute || off < -3*time.Minute {
				t.Errorf("+%v: notice names run-out %s, true %s", d, n.RunoutAt.Format("15:04:05"), trueRunout.Format("15:04:05"))
			}
			if first == nil {
				n := n
				first, firstAt = &n, now
			}
		}
	}
	if first == nil {
		t.Fatal("no burning-fast notice")
	}
	t.Logf("first notice %v after the change: bucket %d, run-out %s (true %s); buckets sent %v",
		firstAt.Sub(change), first.UrgencyMinutes, first.RunoutAt.Format("15:04:05"), trueRunout.Format("15:04:05"), sentBuckets)
	if firstAt.Sub(change) > 2*time.Minute {
		t.Errorf("first notice %v after the change, want within 2 min", firstAt.Sub(change))
	}
}
