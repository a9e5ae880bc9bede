package burn

import "time"

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
