package burn

import (
	"slices"
	"time"
)

// A calibration is what one percent of a window costs in local weighted
// tokens (docs/burn-model.md, "Calibration").
type calibration struct {
	perToken float64   // percent per weighted token
	last     Sample    // newest sample of the series it was learned from
	cross    time.Time // about when that series reached last's value
	res      float64
}

// calibrate learns the percent per token of one window instance and keeps
// the finest source's. events are the provider's, sorted by time.
func calibrate(samples []Sample, events []tokenAt, windowMinutes int, cfg Config) (calibration, bool) {
	if len(events) == 0 {
		return calibration{}, false
	}
	span := scaled(cfg.CalibrationSpan, windowMinutes)
	var best calibration
	found := false
	for src, ss := range bySource(samples) {
		res := seriesResolution(src, ss)
		series := seriesOf(ss)
		if len(series) < 2 {
			continue
		}
		// The points whose time and percent are both known.
		type point struct {
			at    time.Time
			level float64
		}
		var pts []point
		if res > 0 {
			for _, st := range stepsOf(series, false) {
				pts = append(pts, point{st.at(), st.level})
			}
		} else {
			for _, s := range series {
				pts = append(pts, point{s.ObservedAt, s.UsedPercent})
			}
		}
		if len(pts) < 2 {
			continue
		}
		// Only a stretch the events cover: tokens not read would make every
		// token read look dearer.
		b := pts[len(pts)-1]
		i := slices.IndexFunc(pts, func(p point) bool { return b.at.Sub(p.at) <= span && !p.at.Before(events[0].at) })
		if i < 0 {
			continue
		}
		a := pts[i]
		moved := b.level - a.level
		if moved < max(3*res, 0.3) {
			continue
		}
		tokens := tokensBetween(events, a.at, b.at)
		if tokens <= 0 {
			continue
		}
		c := calibration{perToken: moved / tokens, last: series[len(series)-1], res: res}
		c.cross = crossOf(series, stepsOf(series, false), res)
		if !found || finer(c.res, c.last, best.res, best.last) {
			best, found = c, true
		}
	}
	return best, found
}

// usedAt is the used percent at t: the last value plus the cost of the usage
// written since, never past the next step but by usage after the newest sample.
func (c calibration) usedAt(t time.Time, events []tokenAt) float64 {
	along := c.perToken * tokensBetween(events, c.cross, t)
	if c.res > 0 {
		along = min(along, c.res+c.perToken*tokensBetween(events, c.last.ObservedAt, t))
	}
	return c.last.UsedPercent + along
}

// tokenAt is what the account arithmetic reads of a usage event, small.
type tokenAt struct {
	at       time.Time
	weighted float64
}

// tokensBetween sums the weighted tokens of events in (from, to].
func tokensBetween(events []tokenAt, from, to time.Time) float64 {
	i, _ := slices.BinarySearchFunc(events, from, func(e tokenAt, t time.Time) int {
		if e.at.After(t) {
			return 1
		}
		return -1
	})
	sum := 0.0
	for _, e := range events[i:] {
		if e.at.After(to) {
			break
		}
		sum += e.weighted
	}
	return sum
}
