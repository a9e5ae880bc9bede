// Package metrics exposes runway's snapshot in the Prometheus text format
// (expose.go), read from the newest snapshot at each scrape, and a few
// figures of the process itself (process.go). Burns are in quota seconds per
// second (runway's m/h over 60): promtool refuses "minutes" in a name.
package metrics

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
)

// MaxSessions bounds the session series per provider: the busiest only, so
// a long day does not grow a scrape.
const MaxSessions = 50

var states = []burn.State{burn.OnTrack, burn.RunoutBeforeReset, burn.Low, burn.Exhausted, burn.NoData}

// desc is a family's name, help and label names.
type desc struct {
	name, help string
	labels     []string
}

// labelled pairs d's label names with values.
func (d *desc) labelled(values []string) []Label {
	labels := make([]Label, len(d.labels))
	for i, name := range d.labels {
		labels[i] = Label{name, values[i]}
	}
	return labels
}

// gauges collects gauge families of one sample each.
type gauges []Family

func (g *gauges) add(d *desc, v float64, values ...string) {
	*g = append(*g, Family{Name: d.name, Help: d.help, Type: Gauge, Samples: []Sample{{Labels: d.labelled(values), Value: v}}})
}

var (
	windowLabels  = []string{"provider", "window"}
	sessionLabels = []string{"provider", "session", "project", "host"}

	usedRatio = &desc{"runway_window_used_ratio",
		"Share of the window's quota used (0 to 1), from the newest account sample.", windowLabels}
	resetAt = &desc{"runway_window_reset_timestamp_seconds",
		"When the window resets (Unix time).", windowLabels}
	runoutAt = &desc{"runway_window_runout_timestamp_seconds",
		"When the window runs dry at the current burn (Unix time); absent when it lasts to the reset.", windowLabels}
	windowBurn = &desc{"runway_window_burn_quota_seconds_per_second",
		"Burn in quota seconds per second (runway's m/h divided by 60): 1 lasts a whole window of that length from its opening; runway_window_sustainable_quota_seconds_per_second is what lasts from now.", windowLabels}
	windowLasts = &desc{"runway_window_sustainable_quota_seconds_per_second",
		"The burn that lasts to the reset: what is left over the time to it, in quota seconds per second; a burn above it runs out first.", windowLabels}
	windowState = &desc{"runway_window_state",
		"1 for the window's current verdict, 0 for the others.", []string{"provider", "window", "state"}}
	sessionBurn = &desc{"runway_session_quota_seconds_per_second",
		"A session's share of its provider's burn in quota seconds per second (m/h divided by 60; sessions with a current rate only).", sessionLabels}
	sessionTokens = &desc{"runway_session_tokens_per_second",
		"A session's weighted token rate (sessions with a current rate only).", sessionLabels}
	elsewhere = &desc{"runway_elsewhere_quota_seconds_per_second",
		"Burn no session explains, in quota seconds per second: another machine not reporting, the web app.", []string{"provider"}}
	sourceAge = &desc{"runway_source_age_seconds",
		"Age of the newest account sample from each source.", []string{"provider", "source"}}
)

// Snapshot is the source of runway's own families: the newest snapshot's,
// source ages as of now (time.Now when nil).
func Snapshot(snapshot func() burn.Snapshot, now func() time.Time) Source {
	if now == nil {
		now = time.Now
	}
	return func() []Family { return families(snapshot(), now()) }
}

func families(s burn.Snapshot, now time.Time) []Family {
	var g gauges
	for _, p := range s.Providers {
		// Two logins are two providers, "claude (work)" and "claude (home)":
		// one label set twice would fail the scrape.
		prov := p.Name()
		g.windows(p, prov, now)
		if p.Burn.Known() {
			g.add(elsewhere, p.ElsewhereQuotaMinutesPerHour/60, prov)
		}
		g.sessions(s.SessionsOfStatus(p), prov, p.Burn.Known())
	}
	return g
}

// windows adds each window's gauges and each source's age. A provider
// without a 5-hour window has the weekly one as both: one series.
func (g *gauges) windows(p burn.ProviderStatus, prov string, now time.Time) {
	ages := map[burn.Source]float64{}
	seen := map[burn.WindowClass]bool{}
	for _, w := range []*burn.WindowStatus{p.Window, p.Weekly} {
		if w == nil || seen[w.Class] {
			continue
		}
		seen[w.Class] = true
		win := string(w.Class)
		g.add(usedRatio, w.UsedPercent/100, prov, win)
		if w.ResetsAt != nil {
			g.add(resetAt, float64(w.ResetsAt.Unix()), prov, win)
		}
		if w.RunoutAt != nil {
			g.add(runoutAt, float64(w.RunoutAt.Unix()), prov, win)
		}
		if w.Burn.Known() { // unknown is no series, never 0
			g.add(windowBurn, w.Burn.QuotaMinutesPerHour/60, prov, win)
			g.add(windowLasts, w.Burn.SustainableQuotaMinutesPerHour/60, prov, win)
		}
		for _, st := range states {
			v := 0.0
			if st == w.State {
				v = 1
			}
			g.add(windowState, v, prov, win, string(st))
		}
		if w.Source != "" {
			age := max(now.Sub(w.ObservedAt).Seconds(), 0)
			if old, ok := ages[w.Source]; !ok || age < old {
				ages[w.Source] = age
			}
		}
	}
	for _, src := range slices.Sorted(maps.Keys(ages)) {
		g.add(sourceAge, ages[src], prov, string(src))
	}
}

// sessions adds the busiest burning sessions' gauges.
func (g *gauges) sessions(all []burn.SessionStatus, prov string, known bool) {
	var burning []burn.SessionStatus
	for _, x := range all {
		if x.RateKind == burn.Measured || x.RateKind == burn.Provisional {
			burning = append(burning, x)
		}
	}
	slices.SortStableFunc(burning, func(a, b burn.SessionStatus) int {
		return cmp.Compare(b.QuotaMinutesPerHour, a.QuotaMinutesPerHour)
	})
	for _, x := range burning[:min(len(burning), MaxSessions)] {
		labels := []string{prov, x.ID, x.Project, x.Host}
		if known {
			g.add(sessionBurn, x.QuotaMinutesPerHour/60, labels...)
		}
		g.add(sessionTokens, x.TokensPerS, labels...)
	}
}
