package burn

import (
	"fmt"
	"maps"
	"slices"
)

// Account is a login of a provider that runway knows is in use, each with
// its own windows.
type Account struct {
	Provider Provider
	ID       string // the fingerprint samples and events carry (Sample.Account)
	Label    string // what a person reads, never an e-mail address; "": ID
}

// UnknownLogin labels the sessions whose login runway cannot tell.
const UnknownLogin = "unknown login"

// An accountGroup is one login's part of a provider: its samples by window
// class and its sessions.
type accountGroup struct {
	id, label string
	samples   map[WindowClass][]Sample
	sessions  []*session
}

// byAccount splits a provider's samples and sessions by login
// (docs/burn-model.md, "Several logins").
func byAccount(p Provider, samples map[WindowClass][]Sample, sessions []*session, owner map[sessionKey]string, accounts []Account) []accountGroup {
	var known []accountGroup
	add := func(id, label string) {
		if id != "" && !slices.ContainsFunc(known, func(g accountGroup) bool { return g.id == id }) {
			known = append(known, accountGroup{id: id, label: label})
		}
	}
	for _, a := range accounts {
		if a.Provider == p {
			add(a.ID, a.Label)
		}
	}
	if len(known) == 0 {
		named := map[string]bool{}
		for _, ss := range samples {
			for _, s := range ss {
				named[s.Account] = true
			}
		}
		for _, s := range sessions {
			if s.provider == p {
				named[owner[sessionKey{p, s.id}]] = true
			}
		}
		for _, id := range slices.Sorted(maps.Keys(named)) {
			add(id, "")
		}
	}
	if len(known) <= 1 {
		g := accountGroup{samples: samples, sessions: sessions}
		if len(known) == 1 {
			g.samples = samplesOf(samples, func(a string) bool { return a == "" || a == known[0].id })
		}
		return []accountGroup{g}
	}
	for i := range known {
		g := &known[i]
		if g.label == "" {
			g.label = g.id
		}
		g.samples = samplesOf(samples, func(a string) bool { return a == g.id })
	}
	known = append(known, accountGroup{label: UnknownLogin})
	for _, s := range sessions {
		if s.provider != p {
			continue
		}
		i := slices.IndexFunc(known, func(g accountGroup) bool { return g.id == owner[sessionKey{p, s.id}] })
		if i < 0 {
			i = len(known) - 1 // a login not listed: not one of the known ones'
		}
		known[i].sessions = append(known[i].sessions, s)
	}
	return known
}

// samplesOf keeps the samples whose account passes keep, in their order.
func samplesOf(in map[WindowClass][]Sample, keep func(account string) bool) map[WindowClass][]Sample {
	out := make(map[WindowClass][]Sample, len(in))
	for c, ss := range in {
		var kept []Sample
		for _, s := range ss {
			if keep(s.Account) {
				kept = append(kept, s)
			}
		}
		if len(kept) > 0 {
			out[c] = kept
		}
	}
	return out
}

// owners is the login each session runs under: the first its events or its
// activity name.
func owners(events []Event, activity []Activity) map[sessionKey]string {
	out := map[sessionKey]string{}
	for _, e := range events {
		if k := (sessionKey{e.Provider, e.Session}); e.Account != "" && out[k] == "" {
			out[k] = e.Account
		}
	}
	for _, a := range activity {
		if k := (sessionKey{a.Provider, a.Session}); a.Account != "" && out[k] == "" {
			out[k] = a.Account
		}
	}
	return out
}

// Name is how a surface names the provider: "claude", or "claude (work)"
// when it has several logins.
func (p ProviderStatus) Name() string {
	if p.AccountLabel == "" {
		return string(p.Provider)
	}
	return fmt.Sprintf("%s (%s)", p.Provider, p.AccountLabel)
}

// SessionsOfStatus is the sessions that burn p's windows (same provider, same
// login), in rank order.
func (s Snapshot) SessionsOfStatus(p ProviderStatus) []SessionStatus {
	var out []SessionStatus
	for _, x := range s.Sessions {
		if x.Provider == p.Provider && x.Account == p.Account {
			out = append(out, x)
		}
	}
	return out
}

// ProviderOf is the status of provider p for the login account: the only
// one when it has one login; nil when none is listed.
func (s Snapshot) ProviderOf(p Provider, account string) *ProviderStatus {
	var mine []*ProviderStatus
	for i := range s.Providers {
		if s.Providers[i].Provider == p {
			mine = append(mine, &s.Providers[i])
		}
	}
	if len(mine) == 1 && mine[0].AccountLabel == "" {
		return mine[0]
	}
	for _, ps := range mine {
		if ps.Account == account {
			return ps
		}
	}
	return nil
}
