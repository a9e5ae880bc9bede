package burn

import (
	"slices"
	"time"
)

// maxWindowMinutes is the longest window a sample may claim: a month.
const maxWindowMinutes = 31 * 1440

// sources are the sources runway knows.
var sources = []Source{SourceStatusline, SourceCodexLog, SourceCodexRPC, SourceOAuth, SourceOAuthCache, SourceLimitHit}

// MaxUsedPercent is the most a source may claim used (older Claude builds
// said up to 105); more is damage, not an exhausted window.
const MaxUsedPercent = 110

// resetSlack is how much later than its window's length after the
// observation a reset may still be: sources round resets_at.
const resetSlack = time.Hour

// CleanSample is s as the model reads it, or false when s cannot mean what
// it says (docs/burn-model.md, "Cleaning").
func CleanSample(s Sample) (Sample, bool) {
	if !slices.Contains(providers, s.Provider) || !slices.Contains(sources, s.Source) || s.ObservedAt.IsZero() ||
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

// NewSample is a source's reading of one window, or false when the used
// percent is one no source reports. def stands for a minutes that is no length.
func NewSample(p Provider, src Source, at time.Time, used, minutes float64, def int, resets time.Time) (Sample, bool) {
	if !(used >= 0 && used <= MaxUsedPercent) {
		return Sample{}, false
	}
	m := def
	if minutes >= 1 && minutes < 1<<31 {
		m = int(minutes)
	}
	return Sample{
		ObservedAt:    at.UTC(),
		Provider:      p,
		Window:        ClassOf(m),
		WindowMinutes: m,
		UsedPercent:   min(used, 100),
		ResetsAt:      resets,
		Source:        src,
	}, true
}
