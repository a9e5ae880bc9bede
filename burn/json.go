package burn

import (
	"encoding/json"
	"math"
	"time"
)

// MarshalJSON writes the snapshot's stable form: times in UTC, empty lists
// as [], and no NaN or infinity, whoever built the value.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	n := s.normal().rounded()
	// Without the provider's burn, elsewhere and the shares are null.
	type providerJSON struct {
		ProviderStatus
		Elsewhere *float64 `json:"elsewhere_quota_minutes_per_hour"`
	}
	type sessionJSON struct {
		SessionStatus
		Share *float64 `json:"quota_minutes_per_hour"`
	}
	// Snapshot's fields, in its order: a field added there is added here.
	out := struct {
		At        time.Time      `json:"at"`
		Providers []providerJSON `json:"providers"`
		Sessions  []sessionJSON  `json:"sessions"`
		Warnings  []string       `json:"warnings"`
		Unread    []string       `json:"unread,omitempty"`
	}{n.At, make([]providerJSON, len(n.Providers)), make([]sessionJSON, len(n.Sessions)), n.Warnings, n.Unread}
	for i, p := range n.Providers {
		out.Providers[i] = providerJSON{ProviderStatus: p}
		if p.Burn.Known() {
			out.Providers[i].Elsewhere = &n.Providers[i].ElsewhereQuotaMinutesPerHour
		}
	}
	for i, x := range n.Sessions {
		out.Sessions[i] = sessionJSON{SessionStatus: x}
		if p := n.ProviderOf(x.Provider, x.Account); p != nil && p.Burn.Known() {
			out.Sessions[i].Share = &n.Sessions[i].QuotaMinutesPerHour
		}
	}
	return json.Marshal(out)
}

// rounded keeps the digits a person can use (float noise breaks a diff);
// only the JSON form is rounded.
func (s Snapshot) rounded() Snapshot {
	for i := range s.Providers {
		p := &s.Providers[i]
		for _, w := range []*WindowStatus{p.Window, p.Weekly} {
			if w == nil {
				continue
			}
			w.UsedPercent = round(w.UsedPercent, 4)
			w.Burn = w.Burn.rounded()
			w.RunoutAt = toSecond(w.RunoutAt)
			w.RunoutMinutesBeforeReset = round(w.RunoutMinutesBeforeReset, 2)
		}
		p.Burn = p.Burn.rounded()
		p.RunoutAt = toSecond(p.RunoutAt)
		p.ElsewhereQuotaMinutesPerHour = round(p.ElsewhereQuotaMinutesPerHour, 4)
		p.RunoutMinutesBeforeReset = round(p.RunoutMinutesBeforeReset, 2)
	}
	for i := range s.Sessions {
		x := &s.Sessions[i]
		x.TokensPerS = round(x.TokensPerS, 2)
		x.QuotaMinutesPerHour = round(x.QuotaMinutesPerHour, 4)
		x.PauseRunoutAt = toSecond(x.PauseRunoutAt)
		x.PauseGainMinutes = round(x.PauseGainMinutes, 2)
	}
	return s
}

func (b Burn) rounded() Burn {
	b.PercentPerS = significant(b.PercentPerS, 6)
	b.QuotaMinutesPerHour = round(b.QuotaMinutesPerHour, 4)
	b.SustainableQuotaMinutesPerHour = round(b.SustainableQuotaMinutesPerHour, 4)
	return b
}

// MarshalJSON writes an unknown burn's figures (Known) as null, never 0.
func (b Burn) MarshalJSON() ([]byte, error) {
	type plain Burn // without the method
	if b.Known() {
		return json.Marshal(plain(b))
	}
	// In Burn's own order: the figures before the method, the pace after.
	return json.Marshal(struct {
		PercentPerS         *float64 `json:"percent_per_s"`
		QuotaMinutesPerHour *float64 `json:"quota_minutes_per_hour"`
		plain
		Sustainable *float64 `json:"sustainable_quota_minutes_per_hour"`
	}{plain: plain(b)})
}

func round(x float64, decimals int) float64 {
	x = finite(x)
	if math.Abs(x) > 1e12 || decimals > 300 {
		// x*p or p itself would overflow.
		return x
	}
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

// significant rounds x to n significant digits (rates in %/s are tiny).
func significant(x float64, n int) float64 {
	if x == 0 || finite(x) != x {
		return finite(x)
	}
	return round(x, n-1-int(math.Floor(math.Log10(math.Abs(x)))))
}

func toSecond(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	r := t.Round(time.Second)
	return &r
}

// normal is a deep copy of s in its stable form.
func (s Snapshot) normal() Snapshot {
	out := Snapshot{
		At:        s.At.UTC(),
		Providers: make([]ProviderStatus, len(s.Providers)),
		Sessions:  make([]SessionStatus, len(s.Sessions)),
		Warnings:  append([]string{}, s.Warnings...),
		Unread:    append([]string(nil), s.Unread...),
	}
	for i, p := range s.Providers {
		p.Window = p.Window.normal()
		p.Weekly = p.Weekly.normal()
		p.Burn = p.Burn.normal()
		p.RunoutAt = utcPtr(p.RunoutAt)
		p.ElsewhereQuotaMinutesPerHour = finite(p.ElsewhereQuotaMinutesPerHour)
		p.RunoutMinutesBeforeReset = finite(p.RunoutMinutesBeforeReset)
		out.Providers[i] = p
	}
	for i, x := range s.Sessions {
		out.Sessions[i] = x.normal()
	}
	return out
}

func (w *WindowStatus) normal() *WindowStatus {
	if w == nil {
		return nil
	}
	c := *w
	c.UsedPercent = finite(c.UsedPercent)
	c.ResetsAt = utcPtr(c.ResetsAt)
	c.ObservedAt = c.ObservedAt.UTC()
	c.Burn = c.Burn.normal()
	c.RunoutAt = utcPtr(c.RunoutAt)
	c.RunoutMinutesBeforeReset = finite(c.RunoutMinutesBeforeReset)
	return &c
}

func (b Burn) normal() Burn {
	b.PercentPerS = finite(b.PercentPerS)
	b.QuotaMinutesPerHour = finite(b.QuotaMinutesPerHour)
	b.SustainableQuotaMinutesPerHour = finite(b.SustainableQuotaMinutesPerHour)
	if b.Method == "" {
		b.Method = MethodNone
	}
	return b
}

func (x SessionStatus) normal() SessionStatus {
	x.TokensPerS = finite(x.TokensPerS)
	x.QuotaMinutesPerHour = finite(x.QuotaMinutesPerHour)
	x.PauseRunoutAt = utcPtr(x.PauseRunoutAt)
	x.LastEventAt = x.LastEventAt.UTC()
	x.PauseGainMinutes = finite(x.PauseGainMinutes)
	return x
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	return timePtr(*t)
}

// Worst is the more severe of the active and the weekly window's states.
func (p ProviderStatus) Worst() State {
	s := p.State
	if p.Weekly != nil && p.Weekly.State.Severity() > s.Severity() {
		s = p.Weekly.State
	}
	return s
}

// Provider is the status of provider p, nil when the snapshot lists none.
func (s Snapshot) Provider(p Provider) *ProviderStatus {
	for i := range s.Providers {
		if s.Providers[i].Provider == p {
			return &s.Providers[i]
		}
	}
	return nil
}

// Severity orders states from nothing known (0) to nothing left (4).
func (s State) Severity() int {
	switch s {
	case OnTrack:
		return 1
	case RunoutBeforeReset:
		return 2
	case Low:
		return 3
	case Exhausted:
		return 4
	}
	return 0
}
