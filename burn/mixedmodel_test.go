package burn

import (
	"math"
	"testing"
	"time"
)

// TestMixedModelsMeasure compares one percent-per-token ratio with per-model
// weights when an Opus session (factor times a Sonnet one's price) stops at
// t0. It asserts nothing: the figures are for the note.
func TestMixedModelsMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement")
	}
	const factor = 3.0 // Opus over Sonnet per weighted token (list prices: 5× for Opus 4/4.1, 1.7× for 4.5)
	type sess struct {
		id    string
		rate  float64 // weighted tokens/s
		cost  float64 // account cost per weighted token, relative
		until time.Duration
	}
	ss := []sess{{"opus", 800, factor, 0}, {"sonnet", 1600, 1, time.Hour}}
	run := func(priced bool, d time.Duration) (burn, share, trueBurn, trueShare float64) {
		now := at(d)
		var in Input
		in.Now = now
		used := 20.0
		type ch struct {
			at   time.Time
			cost float64
		}
		var charges []ch
		for _, s := range ss {
			last := time.Time{}
			for x := -40 * time.Minute; x <= d && x < s.until; x += 12 * time.Second {
				e := use(Claude, s.id, at(x), s.rate*12)
				e.TurnStart = at(x - 12*time.Second)
				if priced {
					e.Weighted *= s.cost
				}
				in.Events = append(in.Events, e)
				charges = append(charges, ch{at(x), s.rate * 12 * s.cost})
				last = at(x)
			}
			in.Activity = append(in.Activity, Activity{Provider: Claude, Session: s.id, At: last, TurnEnded: s.until <= d})
		}
		// A statusline read after each response: the percent of what was
		// charged so far.
		for _, c := range charges {
			tot := used
			for _, o := range charges {
				if !o.at.After(c.at) {
					tot += o.cost / capacity * 100
				}
			}
			in.Samples = append(in.Samples, smp(Claude, 300, math.Floor(tot*10)/10, at(3*time.Hour), c.at.Add(300*time.Millisecond), SourceStatusline))
		}
		snap := Compute(in, DefaultConfig())
		p := mustProvider(t, snap, Claude)
		var tb, to float64
		for _, s := range ss {
			if d < s.until {
				tb += s.rate * s.cost
				if s.id == "opus" {
					to = s.rate * s.cost
				}
			}
		}
		if o := sessionByID(snap, "opus"); o != nil && p.Burn.QuotaMinutesPerHour > 0 {
			share = o.QuotaMinutesPerHour / p.Burn.QuotaMinutesPerHour
		}
		return p.Burn.QuotaMinutesPerHour, share, QuotaMinutesPerHour(tb/capacity*100, 300), to / tb
	}
	for _, priced := range []bool{false, true} {
		name := "one ratio, tokens as they are"
		if priced {
			name = "tokens weighted by the model's price"
		}
		for _, d := range []time.Duration{-time.Minute, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute} {
			b, s, tb, ts := run(priced, d)
			t.Logf("%-38s %+6v: burn %6.1f m/h (true %6.1f, off %3.0f %%), opus share %3.0f %% (true %3.0f %%)",
				name, d, b, tb, math.Abs(b-tb)/tb*100, s*100, ts*100)
		}
	}
}
