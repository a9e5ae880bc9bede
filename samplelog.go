package runway

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/statedir"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// The sample log: runway's own record of every source's account samples,
// shared by every runway process.

// sampleHistory is how far back the sample log is read: a weekly window's
// newest sample may be days old and still say where it stands.
const sampleHistory = 8 * 24 * time.Hour

// loggedSamples reads the sample log up to at; samples after now are said.
func (e Env) loggedSamples(at time.Time, historic bool) ([]burn.Sample, []string, []string) {
	all, warnings, unread := e.readLog(at.Add(-sampleHistory))
	if !historic {
		w, u := clockStepped(all, at)
		warnings, unread = append(warnings, w...), append(unread, u...)
	}
	return samplesUntil(all, at), warnings, unread
}

// clockStepped warns of samples dated after now (all in the order written).
// When the last one written is among them the clock stepped back: what is
// left may say "lasts" of a window they show running out, so it is unread.
func clockStepped(all []burn.Sample, at time.Time) (warnings, unread []string) {
	future := 0
	for _, s := range all {
		if s.ObservedAt.After(at.Add(clockAhead)) {
			future++
		}
	}
	if future == 0 {
		return nil, nil
	}
	warnings = []string{fmt.Sprintf("sample log: %d sample(s) dated after now left out (was the clock ahead?)", future)}
	if last := all[len(all)-1]; last.ObservedAt.After(at.Add(clockAhead)) {
		unread = []string{fmt.Sprintf("the sample log's newest readings, dated %s ahead of this clock (did it step back?)", text.Span(last.ObservedAt.Sub(at)))}
	}
	return warnings, unread
}

// rolloutsAhead: a session log's account reading dated further ahead than
// burn keeps is left out of the figures; the clock stepped back under it, so
// what is left may say "lasts" of a window it shows used up.
func rolloutsAhead(samples []burn.Sample, at time.Time, skew time.Duration) []string {
	var newest time.Time
	for _, s := range samples {
		if s.ObservedAt.Sub(at) > skew && s.ObservedAt.After(newest) {
			newest = s.ObservedAt
		}
	}
	if newest.IsZero() {
		return nil
	}
	return []string{fmt.Sprintf("the session logs' newest account readings, dated %s ahead of this clock (did it step back?)", text.Span(newest.Sub(at)))}
}

// clockAhead: a sample a statusline wrote during this read is seconds ahead.
const clockAhead = time.Minute

// readLog reads the sample log from since on, opening nothing for writing.
// What it cannot read is unread too, so the gate cannot say "on track".
func (e Env) readLog(since time.Time) (samples []burn.Sample, warnings, unread []string) {
	if note, err := statedir.Check(e.StateDir); err != nil {
		w := fmt.Sprintf("%v; see runway doctor", err)
		return nil, []string{w}, []string{"the state folder " + e.StateDir}
	} else if note != "" {
		warnings = append(warnings, note)
	}
	warnings = append(warnings, e.ForeignState()...)
	log := quota.LogIn(e.StateDir)
	samples, logWarnings, err := log.ReadAll(since)
	warnings = append(warnings, logWarnings...)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("sample log: %v (see runway doctor)", err))
		unread = append(unread, "the sample log "+log.Path())
	}
	return samples, warnings, unread
}

// samplesUntil is the samples observed inside [at − sampleHistory, at].
func samplesUntil(all []burn.Sample, at time.Time) []burn.Sample {
	from := at.Add(-sampleHistory)
	var out []burn.Sample
	for _, s := range all {
		if !s.ObservedAt.After(at) && !s.ObservedAt.Before(from) {
			out = append(out, s)
		}
	}
	return out
}

// newestOfEach is the newest sample of each series: what the sample log
// needs to hear (older ones it has, or has missed for good).
func newestOfEach(samples []burn.Sample) []burn.Sample {
	type series struct {
		p       burn.Provider
		w       burn.WindowClass
		s       burn.Source
		account string
	}
	newest := map[series]burn.Sample{}
	for _, x := range samples {
		k := series{x.Provider, x.Window, x.Source, x.Account}
		if old, ok := newest[k]; !ok || x.ObservedAt.After(old.ObservedAt) {
			newest[k] = x
		}
	}
	out := make([]burn.Sample, 0, len(newest))
	for _, x := range newest {
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b burn.Sample) int { return a.ObservedAt.Compare(b.ObservedAt) })
	return out
}

// record appends to the sample log what it lacks, so every process and a
// later --at sees the rollouts' and caches' samples after they are gone.
// A state folder that cannot be written costs only the sharing.
func (e Env) record(now time.Time, samples []burn.Sample) {
	if len(samples) == 0 {
		return
	}
	if log, err := quota.OpenLog(e.StateDir); err == nil {
		log.Record(now, samples)
	}
}
