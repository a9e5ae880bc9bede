package tray

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
	"github.com/agentrunway/runway/internal/printable"
)

// view is everything the tray shows for one snapshot, as text: the menu is a
// fixed set of rows, so a view says what each row reads and "" hides it.
type view struct {
	Title   string // beside the icon (macOS); "" when nothing burns
	Tooltip string
	Icon    iconKey
	Groups  []group // one per provider, in the snapshot's order
	Warning string  // the first of the snapshot's warnings, shortened
}

// group is one provider's rows in the menu, indented under its header (menus
// have no other way to group rows that separators cannot be hidden between).
type group struct {
	Header    string   // "Claude 5h 42% · resets 15:00"
	Runout    string   // "38 m/h · runs out 14:05, 25 min before reset"
	Weekly    string   // "weekly 63% · resets Mon 09:00"
	Sessions  []string // ranked, at most maxRows
	More      string   // "+3 sessions"
	Elsewhere string   // "elsewhere 12 m/h (no local session)"
}

// startingView is shown until the first snapshot arrives.
func startingView() view {
	return view{
		Tooltip: "runway: reading agent logs…",
		Icon:    iconKey{State: burn.NoData},
		Groups:  []group{{Header: "Reading agent logs…"}},
	}
}

// render turns a snapshot into a view. Times are shown in loc; mode is a
// session list mode; maxRows bounds the session rows per provider.
func render(s burn.Snapshot, loc *time.Location, mode string, maxRows int) view {
	v := view{Icon: iconFor(worst(s.Providers)), Warning: warning(s.Warnings)}
	if len(s.Providers) == 0 {
		v.Tooltip = "runway: no quota data yet"
		v.Groups = []group{{Header: "No quota data yet (see Open doctor…)"}}
		return v
	}
	var tips, titles []string
	for i := range s.Providers {
		p := &s.Providers[i]
		tip := short(p, s.At, loc)
		tips = append(tips, tip)
		if interesting(p) {
			titles = append(titles, tip)
		}
		v.Groups = append(v.Groups, renderGroup(p, s.Sessions, s.At, loc, mode, maxRows))
	}
	v.Tooltip = strings.Join(tips, " · ")
	v.Title = strings.Join(titles, " · ")
	return v
}

// warning is one menu row for the snapshot's warnings; doctor has them all.
func warning(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	w := []rune(strings.TrimSpace(printable.String(ws[0])))
	if len(w) > 70 {
		w = append(w[:69], '…')
	}
	s := "⚠ " + string(w)
	if len(ws) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(ws)-1)
	}
	return s
}

// short is one provider in the tooltip: "claude 38 m/h ▸14:05".
func short(p *burn.ProviderStatus, at time.Time, loc *time.Location) string {
	name := string(p.Provider)
	switch {
	case p.State == burn.NoData || p.Window == nil:
		return name + " no data"
	case p.State == burn.Exhausted:
		if p.Window.ResetsAt != nil {
			return name + " exhausted until " + figure.Clock(*p.Window.ResetsAt, at, loc)
		}
		return name + " exhausted"
	}
	s := name + " " + p.Burn.Marker() + perHour(p.Burn.QuotaMinutesPerHour)
	if p.Window.RunsOut() {
		s += " ▸" + figure.Clock(*p.RunoutAt, at, loc)
	}
	if note := weeklyNote(p, at, loc); note != "" {
		s += " (" + note + ")"
	}
	return s
}

// weeklyNote is the weekly window's verdict when it is worse than the active
// window's: a weekly window that runs dry blocks the provider whatever the
// 5-hour one says.
func weeklyNote(p *burn.ProviderStatus, at time.Time, loc *time.Location) string {
	wk := p.Weekly
	if wk == nil || (p.Window != nil && wk.Class == p.Window.Class) || wk.State.Severity() <= p.State.Severity() {
		return ""
	}
	switch {
	case wk.State == burn.Exhausted && wk.ResetsAt != nil:
		return "weekly exhausted until " + figure.Clock(*wk.ResetsAt, at, loc)
	case wk.State == burn.Exhausted:
		return "weekly exhausted"
	case wk.RunoutAt != nil && (wk.ResetsAt == nil || wk.RunoutAt.Before(*wk.ResetsAt)):
		return "weekly runs out " + figure.Clock(*wk.RunoutAt, at, loc)
	case wk.State == burn.Low:
		return "weekly " + figure.Percent(wk.UsedPercent)
	}
	return ""
}

// interesting says whether a provider earns a place in the title: it burns,
// or it is not on track.
func interesting(p *burn.ProviderStatus) bool {
	switch p.Worst() {
	case burn.NoData:
		return false
	case burn.OnTrack:
		return math.Round(p.Burn.QuotaMinutesPerHour) >= 1
	}
	return true
}

func renderGroup(p *burn.ProviderStatus, sessions []burn.SessionStatus, at time.Time, loc *time.Location, mode string, maxRows int) group {
	var g group
	name := providerName(p.Provider)
	w := p.Window
	if w == nil || p.State == burn.NoData {
		g.Header = name + " · no account data yet"
	} else if w.Reset {
		g.Header = name + " " + windowName(w) + " has reset · no sample of the new window yet"
	} else {
		g.Header = name + " " + windowName(w) + " " + figure.Percent(w.UsedPercent) + resets(w, at, loc)
		if !w.Fresh {
			g.Header += " · as of " + figure.Clock(w.ObservedAt, at, loc)
		}
		g.Runout = "  " + runoutRow(p, at, loc)
	}
	if wk := p.Weekly; wk != nil && (w == nil || wk.Class != w.Class) {
		switch {
		case wk.Reset:
			g.Weekly = "  weekly has reset"
		case wk.State == burn.Exhausted:
			g.Weekly = "  weekly exhausted" + resets(wk, at, loc)
		default:
			g.Weekly = "  weekly " + figure.Percent(wk.UsedPercent)
			if wk.RunoutAt != nil && (wk.ResetsAt == nil || wk.RunoutAt.Before(*wk.ResetsAt)) {
				g.Weekly += " · runs out " + figure.Clock(*wk.RunoutAt, at, loc)
			}
			g.Weekly += resets(wk, at, loc)
		}
	}

	listed := listedSessions(p.Provider, sessions, mode)
	names := figure.SessionNames(listed)
	for i, ss := range listed {
		if i == maxRows {
			n := len(listed) - maxRows
			g.More = fmt.Sprintf("    +%d sessions", n)
			if n == 1 {
				g.More = "    +1 session"
			}
			break
		}
		g.Sessions = append(g.Sessions, sessionRow(p, &ss, names[i]))
	}
	// Below a tenth of a quota minute per hour is rounding noise, not a
	// machine nobody mentioned.
	if mode != SessionsNever && p.ElsewhereQuotaMinutesPerHour >= 0.1 {
		g.Elsewhere = "    elsewhere " + perHour(p.ElsewhereQuotaMinutesPerHour) + " (no local session)"
	}
	return g
}

// resets is " · resets 15:00", or " · resets by 15:00" when no source said
// and the time is the latest the window can reset.
func resets(w *burn.WindowStatus, at time.Time, loc *time.Location) string {
	switch {
	case w.ResetsAt == nil:
		return ""
	case w.ResetsAtEstimated:
		return " · resets by " + figure.Clock(*w.ResetsAt, at, loc)
	}
	return " · resets " + figure.Clock(*w.ResetsAt, at, loc)
}

// runoutRow is the burn and where it leads: "38 m/h · runs out 14:05, 25 min
// before reset", "6 m/h · lasts to reset", "exhausted until 15:00".
func runoutRow(p *burn.ProviderStatus, at time.Time, loc *time.Location) string {
	if p.State == burn.Exhausted {
		if p.Window.ResetsAt != nil {
			return "exhausted until " + figure.Clock(*p.Window.ResetsAt, at, loc)
		}
		return "exhausted until the reset"
	}
	rate := p.Burn.Marker() + perHour(p.Burn.QuotaMinutesPerHour) // "~": an estimate
	if !p.Window.RunsOut() {
		return rate + " · lasts to reset"
	}
	s := rate + " · runs out " + figure.Clock(*p.RunoutAt, at, loc)
	if p.Window.ResetsAt != nil {
		s += ", " + duration(p.Window.ResetsAt.Sub(*p.RunoutAt)) + " before reset"
	}
	return s
}

// listedSessions picks a provider's sessions for the mode, in burn's rank
// order (burning by m/h and pause impact, then waiting, then idle).
func listedSessions(prov burn.Provider, all []burn.SessionStatus, mode string) []burn.SessionStatus {
	if mode == SessionsNever {
		return nil
	}
	var out []burn.SessionStatus
	for _, s := range all {
		if s.Provider != prov || (mode != SessionsAlways && s.RateKind == burn.Idle) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// sessionRow is "my-app 38 m/h · pause → +40 min", "my-app · waiting".
func sessionRow(p *burn.ProviderStatus, s *burn.SessionStatus, name string) string {
	switch s.RateKind {
	case burn.Waiting:
		return "    " + name + " · waiting"
	case burn.Idle:
		return "    " + name + " · idle"
	}
	row := "    " + name + " "
	if s.RateKind == burn.Provisional {
		row += "~" // a first turn's rate is an estimate
	}
	row += perHour(s.QuotaMinutesPerHour)
	switch {
	case s.Agents == 1:
		row += " · 1 subagent"
	case s.Agents > 1:
		row += fmt.Sprintf(" · %d subagents", s.Agents)
	}
	if pause := pauseImpact(p, s); pause != "" {
		row += " · pause → " + pause
	}
	return row
}

// pauseImpact is what pausing a session buys when the window runs out before
// its reset: "lasts", "+40 min", or "" when it does not matter.
func pauseImpact(p *burn.ProviderStatus, s *burn.SessionStatus) string {
	if !p.Window.RunsOut() || s.QuotaMinutesPerHour <= 0 {
		return ""
	}
	switch {
	case s.PauseLastsToReset:
		return "lasts"
	case s.PauseGainMinutes < 1:
		return ""
	}
	return "+" + duration(time.Duration(s.PauseGainMinutes*float64(time.Minute)))
}

// worst is the provider the icon shows: the most severe state of either
// window, then the fullest window.
func worst(ps []burn.ProviderStatus) *burn.ProviderStatus {
	var w *burn.ProviderStatus
	for i := range ps {
		p := &ps[i]
		if w == nil || p.Worst().Severity() > w.Worst().Severity() ||
			(p.Worst().Severity() == w.Worst().Severity() && used(p) > used(w)) {
			w = p
		}
	}
	return w
}

func used(p *burn.ProviderStatus) float64 {
	if p.Window == nil {
		return 0
	}
	return p.Window.UsedPercent
}

func providerName(p burn.Provider) string {
	switch p {
	case burn.Claude:
		return "Claude"
	case burn.Codex:
		return "Codex"
	}
	if p == "" {
		return "?"
	}
	return strings.ToUpper(string(p[:1])) + string(p[1:])
}

func windowName(w *burn.WindowStatus) string {
	c := w.Class
	if c == "" {
		c = burn.ClassOf(w.Minutes)
	}
	return string(c)
}

// perHour shows quota minutes per hour: "38 m/h", "<1 m/h".
func perHour(mph float64) string {
	if mph > 0 && mph < 0.5 {
		return "<1 m/h"
	}
	return fmt.Sprintf("%.0f m/h", max(math.Round(mph), 0))
}

// duration shows a span to the minute: "25 min", "1 h 5 min", "2 d 3 h".
func duration(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	switch {
	case m < 1:
		return "<1 min"
	case m < 60:
		return fmt.Sprintf("%d min", m)
	case m < 24*60:
		if m%60 == 0 {
			return fmt.Sprintf("%d h", m/60)
		}
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	h := (m + 30) / 60
	if h%24 == 0 {
		return fmt.Sprintf("%d d", h/24)
	}
	return fmt.Sprintf("%d d %d h", h/24, h%24)
}
