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
	k, llr := changeScore(at, cum, unit, minBefore, minAfter)
	return k, k > 0 && llr >= threshold
}

// changeScore is changeAt's strongest split and its log-likelihood ratio
// (k is -1 when no split is allowed).
func changeScore(at []time.Time, cum []float64, unit float64, minBefore, minAfter time.Duration) (int, float64) {
	n := len(at) - 1
	if n < 2 || !(unit > 0) {
		return -1, 0
	}
	total := at[n].Sub(at[0]).Seconds()
	amount := cum[n] - cum[0]
	// A net amount within float noise of zero is none: counted as a
	// tiny rate it made any move inside the series a change, and lowering
	// every sample alike flipped the verdict (TestPropertyMoreRemaining).
	if !(total > 0) || !(amount > 1e-9*unit) {
		return -1, 0
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
	return bestK, best
}

// latestChange is where the pace of a cumulative series last changed: the
// strongest change (find's answer over the whole series), then the latest
// one after it, and so on. k indexes at; found is false when one pace
// explains the series.
func latestChange(at []time.Time, cum []float64, find func(at []time.Time, cum []float64) (int, bool)) (k int, found bool) {
	for {
		d, ok := find(at[k:], cum[k:])
		if !ok {
			return k, found
		}
		k, found = k+d, true
	}
}

// changeAfter is the least span after a change of pace that can show it: a
// fine series (res < 1) shows one over half the usual span.
func changeAfter(res float64, minSpan time.Duration) time.Duration {
	if res < 1 {
		return minSpan / 2
	}
	return minSpan
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

// countUnit is the grain changeAt counts a series in. A series moves in
// grains of its source, and by lumps of usage (responses of uneven size) on
// top: counted as Poisson events of one grain, a lumpy series already reads
// as noisier than it is smooth. A fine series (res < 1) whose moves are as
// regular as rounding alone makes them is within one grain of its pace at
// every reading, not √n grains: it is counted in half grains, which doubles
// the evidence a move carries (a pace that quadruples on a 0.1 % statusline
// polled every 30 s stands out after one minute instead of two; sinceChange
// takes only a speed-up from it). Never
// finer: a single grain of rounding over a short span must stay below
// changeLLR (TestPropertyNoFalseChange). A coarse series keeps its grain: a
// whole-percent tick is too large a share of what a few minutes move.
//
// How regular: adjacent intervals' rates differ, for counts with noise φ
// times Poisson's, by φ·λ·(1/Δt₁ + 1/Δt₂) squared on average; a change of
// pace affects one pair only, so the mean over pairs is robust to it.
func countUnit(at []time.Time, cum []float64, grain, res float64) float64 {
	if !(res < 1) || len(at) < 4 {
		return grain
	}
	total := at[len(at)-1].Sub(at[0]).Seconds()
	lambda := (cum[len(cum)-1] - cum[0]) / grain / total
	if !(lambda > 0) {
		return grain
	}
	sum, n := 0.0, 0
	for j := 2; j < len(at); j++ {
		t1, t2 := at[j-1].Sub(at[j-2]).Seconds(), at[j].Sub(at[j-1]).Seconds()
		if !(t1 > 0) || !(t2 > 0) {
			continue
		}
		r1, r2 := (cum[j-1]-cum[j-2])/grain/t1, (cum[j]-cum[j-1])/grain/t2
		sum += (r1 - r2) * (r1 - r2) / (lambda * (1/t1 + 1/t2))
		n++
	}
	if n < 3 {
		return grain
	}
	return grain * min(max(sum/float64(n), 0.5), 1)
}

// speedsUp says whether a rising cumulative series moves faster after index
// k than before it.
func speedsUp(at []time.Time, cum []float64, k int) bool {
	n := len(at) - 1
	if k <= 0 || k >= n {
		return false
	}
	before := (cum[k] - cum[0]) / at[k].Sub(at[0]).Seconds()
	return (cum[n]-cum[k])/at[n].Sub(at[k]).Seconds() > before
}
