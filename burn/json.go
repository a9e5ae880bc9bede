package burn

import (
	"encoding/json"
	"time"
)

// MarshalJSON writes the snapshot's stable form: times in UTC, empty lists
// as [], and no NaN or infinity, whoever built the value.
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot // without the method
	return json.Marshal(plain(s.normal()))
}

// normal is a deep copy of s in its stable form.
func (s Snapshot) normal() Snapshot {
	out := Snapshot{
		At:        s.At.UTC(),
		Providers: make([]ProviderStatus, len(s.Providers)),
		Sessions:  make([]SessionStatus, len(s.Sessions)),
		Warnings:  append([]string{}, s.Warnings...),
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

// Active is the window the provider's figures are about: the 5-hour one
// when the provider has it, else the weekly one; nil without a sample.
func (p ProviderStatus) Active() *WindowStatus { return p.Window }

// Worst is the more severe of the active and the weekly window's states: a
// provider whose weekly window is exhausted is blocked whatever its 5-hour
// window says.
func (p ProviderStatus) Worst() State {
	s := p.State
	if p.Weekly != nil && severity(p.Weekly.State) > severity(s) {
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

// SessionsOf is p's sessions, in rank order.
func (s Snapshot) SessionsOf(p Provider) []SessionStatus {
	var out []SessionStatus
	for _, x := range s.Sessions {
		if x.Provider == p {
			out = append(out, x)
		}
	}
	return out
}

// Worst is the most severe state of any provider: what an icon shows and
// what `runway now --check` exits on. NoData when nothing is known.
func (s Snapshot) Worst() State {
	w := NoData
	for _, p := range s.Providers {
		if st := p.Worst(); severity(st) > severity(w) {
			w = st
		}
	}
	return w
}

// severity orders states from nothing known to nothing left.
func severity(s State) int {
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
