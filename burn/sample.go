package burn

import (
	"slices"
	"time"
)

// maxWindowMinutes is the longest window a sample may claim: a month. A
// longer one is no window runway knows, and its spans would overflow.
const maxWindowMinutes = 31 * 1440

// sources are the sources runway knows.
var sources = []Source{SourceStatusline, SourceCodexLog, SourceCodexRPC, SourceOAuth, SourceOAuthCache, SourceLimitHit}

// MaxUsedPercent is the most a source may claim used: older Claude builds
// reported up to 105 %, read as 100. A larger figure is a damaged one, not
// an exhausted window: taken at its word it would stop an orchestrator.
const MaxUsedPercent = 110

// resetSlack is how much later than its window's length after the
// observation a reset may still be: sources round resets_at.
const resetSlack = time.Hour

// CleanSample is s as the model reads it, or false when s cannot mean what
// it says: an unknown provider or source (its resolution is unknown), no
// observation time, a used percent that is NaN, negative or above
// MaxUsedPercent, or neither a window length (up to a month) nor a known
// window class. A percent above 100 reads as 100; a length classifies the window (a slot name
// does not: plans without a 5-hour window put the weekly one in Codex's
// "primary"), a missing length is the class's default; a reset more than a
// window's length before the observation, or more than that length (and an
// hour of rounding) after it, is unknown: no instance of that window
// contains the observation. Times are in UTC.
//
// Compute applies it to every sample it is given; a source may apply it
// first to keep what it logs sane.
func CleanSample(s Sample) (Sample, bool) {
	if !slices.Contains(Providers, s.Provider) || !slices.Contains(sources, s.Source) || s.ObservedAt.IsZero() ||
		!(s.UsedPercent >= 0 && s.UsedPercent <= MaxUsedPercent) {
		return Sample{}, false
	}
	switch {
	case s.WindowMinutes > maxWindowMinutes:
		return Sample{}, false
	case s.WindowMinutes > 0:
		s.Window = ClassOf(s.WindowMinutes)
	case s.Window == FiveHour || s.Window == Weekly:
		s.WindowMinutes = s.Window.DefaultMinutes()
	default:
		return Sample{}, false
	}
	s.UsedPercent = min(s.UsedPercent, 100)
	s.ObservedAt = s.ObservedAt.UTC()
	if !s.ResetsAt.IsZero() {
		w := minutes(s.WindowMinutes)
		s.ResetsAt = s.ResetsAt.UTC()
		if s.ResetsAt.Before(s.ObservedAt.Add(-w)) || s.ResetsAt.After(s.ObservedAt.Add(w+resetSlack)) {
			s.ResetsAt = time.Time{}
		}
	}
	return s, true
}
