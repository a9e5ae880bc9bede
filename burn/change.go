package burn

import (
	"math"
	"time"
)

// changeLLR is how much likelier two paces must make a series than one
// before runway says the pace changed: a log-likelihood ratio, in units of
// the series' grain counted as Poisson events. Steady series, whole-percent
// ticks included, stay far below it (a tick series is more regular than
// Poisson); a pace that doubles crosses it within a few grains.
const changeLLR = 7

// changeAt finds where the pace of a rising cumulative series changed: the
// index k of the point after which the amount per second differs from the
// one before it by more than the noise of counting grains of size unit
// allows, the part before spanning at least minBefore and the part after
// at least minAfter. ok is false when one pace
// explains the series.
//
// Amounts are counted in grains: a series that moves in whole-percent ticks
// or in responses of about one size is a count of events, and a count of n
// carries a noise of about √n. So a gap (an endpoint answering 429, a
// statusline quiet during a long tool call) is no change: the amount over
// the gap is what the pace predicts.
func changeAt(at []time.Time, cum []float64, unit float64, minBefore, minAfter time.Duration, threshold float64) (int, bool) {
	n := len(at) - 1
	if n < 2 || !(unit > 0) {
		return 0, false
	}
	total := at[n].Sub(at[0]).Seconds()
	amount := cum[n] - cum[0]
	if !(total > 0) || !(amount > 0) {
		return 0, false
	}
	rate := amount / total
	best, bestK := 0.0, -1
	for k := 1; k < n; k++ {
		ta, tb := at[k].Sub(at[0]), at[n].Sub(at[k])
		if ta < minBefore || tb < minAfter {
			continue
		}
		a, b := (cum[k]-cum[0])/unit, (cum[n]-cum[k])/unit
		llr := xlogx(a, rate*ta.Seconds()/unit) + xlogx(b, rate*tb.Seconds()/unit)
		if llr > best {
			best, bestK = llr, k
		}
	}
	return bestK, bestK > 0 && best >= threshold
}

// xlogx is the Poisson log-likelihood gain of observing x where mu was
// expected: x·ln(x/mu) − (x − mu).
func xlogx(x, mu float64) float64 {
	if !(mu > 0) {
		return 0
	}
	if x <= 0 {
		return mu
	}
	return finite(x*math.Log(x/mu) - (x - mu))
}
