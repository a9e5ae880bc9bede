package burn

import (
	"math"
	"time"
)

// changeLLR is the log-likelihood ratio by which two paces must explain a
// series better than one (docs/burn-model.md, "Changes of pace").
const changeLLR = 7

// changeAt finds where the pace of a rising cumulative series changed,
// counted in Poisson grains of size unit: the index k after which the pace
// differs, or ok false when one pace explains the series.
func changeAt(at []time.Time, cum []float64, unit float64, minBefore, minAfter time.Duration) (int, bool) {
	k, llr := changeScore(at, cum, unit, minBefore, minAfter)
	return k, k > 0 && llr >= changeLLR
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
	// A net amount within float noise of zero is none (TestPropertyMoreRemaining).
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
// strongest change, then the latest one after it.
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

// countUnit is the grain changeAt counts a series in: a fine series as
// regular as rounding makes it, down to half its grain, never finer
// (TestPropertyNoFalseChange; docs/burn-model.md, "Changes of pace").
// Adjacent intervals' rates differ by φ·λ·(1/Δt₁ + 1/Δt₂) squared on average.
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
