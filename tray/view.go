package tray

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/text"
)

// view is everything the tray shows for one snapshot: the menu is a fixed
// set of rows, so a view says what each reads and "" hides it.
type view struct {
	Label   string // beside the icon where the host has a label: "38m/h", "~19m/h", "42%"
	Title   string // for hosts that list the item: "runway 38m/h"
	Tooltip string
	Icon    iconKey
	Groups  []group // one per provider, in the snapshot's order
	Warning string  // the first of the snapshot's warnings, shortened
}

// group is one provider's rows, indented under its header: a menu cannot
// hide the separators between groups.
type group struct {
	Header    string   // "Claude 5h 42% · resets 15:00"
	Runout    string   // "  104m/h · lasts at ≤84 · runs out 14:05, 25m before the reset"
	Weekly    string   // "  weekly 63% · 20m/h · lasts at ≤70 · resets Mon 09:00"
	Sessions  []string // ranked, at most maxRows
	More      string   // "    +3 sessions"
	Elsewhere string   // "    elsewhere 12m/h (no local session)"
}

// rows are the group's labels in menu order, with n session rows.
func (g group) rows(n int) []string {
	sessions := make([]string, n)
	copy(sessions, g.Sessions)
	return slices.Concat([]string{g.Header, g.Runout, g.Weekly}, sessions, []string{g.More, g.Elsewhere})
}

// startingView is shown until the first snapshot arrives.
func startingView() view {
	return view{
		Title:   "runway",
		Tooltip: "runway: reading agent logs…",
		Icon:    iconKey{Tone: toneNone},
		Groups:  []group{{Header: "Reading agent logs…"}},
	}
}

// alertWithin is how close a run-out turns the icon red, whatever the state.
const alertWithin = 10 * time.Minute

// render turns a snapshot into a view, times in loc; mode is a session list
// mode, maxRows the session rows per provider; alert (a critical notice
// out) turns the icon red.
func render(s burn.Snapshot, loc *time.Location, mode string, maxRows int, alert bool) view {
	v := view{Title: "runway", Warning: warning(s.Warnings)}
	v.Icon, v.Label = glance(worst(s.Providers), s.At, alert)
	unproven := s.Unproven()
	if unproven && v.Icon.Tone == toneOK {
		v.Icon.Tone = toneNone // green would say it lasts, which the gate cannot
	}
	if v.Label != "" {
		v.Title += " " + v.Label
	}
	if len(s.Providers) == 0 {
		v.Tooltip = "runway: no quota data yet"
		v.Groups = []group{{Header: "No quota data yet (see Open doctor…)"}}
		return v
	}
	var tips []string
	for i := range s.Providers {
		p := &s.Providers[i]
		// With two logins of a provider, each group has its own sessions.
		mine := s.SessionsOfStatus(*p)
		tips = append(tips, tipLine(p, mine, s.At, loc, unproven))
		v.Groups = append(v.Groups, renderGroup(p, mine, s.At, loc, mode, maxRows, unproven))
	}
	v.Tooltip = strings.Join(tips, "\n")
	return v
}

// verdict is a window's state, burn and run-out: the provider's own for
// its active window, the weekly window's for the weekly one.
func verdict(p *burn.ProviderStatus, w *burn.WindowStatus) (burn.State, burn.Burn, *time.Time) {
	if w == p.Window {
		return p.State, p.Burn, p.RunoutAt
	}
	return w.State, w.Burn, w.RunoutAt
}

// glance is the icon and the label for the most urgent provider's worst
// window: its m/h, or its percent when nothing burns; coloured by the
// verdict, red within alertWithin of the run-out or on alert; grey without
// a percent.
func glance(p *burn.ProviderStatus, at time.Time, alert bool) (iconKey, string) {
	if p == nil {
		return iconKey{Tone: toneNone}, ""
	}
	w := p.WorstWindow()
	if w == nil || w.Reset {
		return iconKey{Tone: toneNone}, ""
	}
	state, b, runout := verdict(p, w)
	k := iconKey{Step: stepOf(w.UsedPercent)}
	switch state {
	case burn.OnTrack:
		k.Tone = toneOK
	case burn.RunoutBeforeReset:
		k.Tone = toneWarn
	case burn.Low, burn.Exhausted:
		k.Tone = toneAlert
	default:
		return iconKey{Tone: toneNone}, ""
	}
	if w.Unproven() {
		k.Tone = toneNone // green would say it lasts, which the gate cannot
	}
	if alert || (runout != nil && state != burn.OnTrack && runout.Sub(at) <= alertWithin) {
		k.Tone = toneAlert
	}
	which := "" // the weekly window shown beside an active one that says otherwise
	if w != p.Window {
		which = "weekly "
	}
	if state == burn.Exhausted {
		k.Step, k.Text = 100, "100%"
		return k, which + "100%"
	}
	if mph := math.Round(b.QuotaMinutesPerHour); b.Method != burn.MethodNone && mph >= 1 {
		k.Text = strconv.Itoa(int(min(mph, 999)))
		return k, which + burnRate(b.QuotaMinutesPerHour, b.Marker() != "")
	}
	// Nothing burns: the percent, never rounded up to a full window.
	pct := min(math.Round(max(w.UsedPercent, 0)), 99)
	k.Text = strconv.Itoa(int(pct)) + "%"
	return k, which + text.Percent(w.UsedPercent)
}

// burnRate is a burn as shown: "38m/h", "~38m/h" when it is an estimate.
func burnRate(mph float64, est bool) string {
	if est {
		return "~" + text.PerHour(mph)
	}
	return text.PerHour(mph)
}

// noFigure is the line of a provider without a current percent, sep before
// "no percent yet"; "" when it has one. It names the window, so a weekly
// figure beside it does not contradict it.
func noFigure(p *burn.ProviderStatus, sep string) string {
	name := text.ProviderName(p.Provider, p.AccountLabel)
	switch w := p.Window; {
	case w == nil:
		return name + sep + "no percent yet"
	case w.Reset:
		return name + " " + windowName(w) + " has reset · no sample of the new window yet"
	case p.State == burn.NoData:
		return name + " " + windowName(w) + sep + "no percent yet"
	}
	return ""
}

// noPercent says the provider has no percent to turn into m/h (a window that
// has reset says so itself).
func noPercent(p *burn.ProviderStatus) bool {
	return p.Window == nil || (p.State == burn.NoData && !p.Window.Reset)
}

// tipLine is one provider in the tooltip, with countdowns, read at a
// glance: "Claude 5h 42% · 38m/h · runs out in 35m · resets in 1h00m".
func tipLine(p *burn.ProviderStatus, sessions []burn.SessionStatus, at time.Time, loc *time.Location, unproven bool) string {
	if s := noFigure(p, ": "); s != "" {
		if tps := tokenRate(p.Provider, sessions); tps > 0 && noPercent(p) {
			s += " · " + tokens(tps)
		}
		return s + weeklyTip(p, at)
	}
	w := p.Window
	s := text.ProviderName(p.Provider, p.AccountLabel) + " " + windowName(w) + " " + text.Percent(w.UsedPercent)
	if !w.Fresh {
		s += " (as of " + text.Clock(w.ObservedAt, at, loc) + ")"
	}
	if p.State == burn.Exhausted {
		s += " · exhausted"
	} else {
		if b := text.BurnLasting(p.Burn); b != "" {
			s += " · " + b
		}
		switch {
		case w.RunsOut():
			s += " · runs out " + text.Countdown(*w.RunoutAt, at)
		case p.Burn.Known():
			s += " · " + text.Outcome(w, at, loc, unproven)
		}
	}
	if w.ResetsAt != nil {
		s += " · resets " + text.Countdown(*w.ResetsAt, at)
	}
	return s + weeklyTip(p, at)
}

// weekly is the provider's weekly window when it is not the active one.
func weekly(p *burn.ProviderStatus) *burn.WindowStatus {
	if wk := p.Weekly; wk != nil && (p.Window == nil || wk.Class != p.Window.Class) {
		return wk
	}
	return nil
}

// weeklyTip is the weekly window's verdict in the tooltip when it is worse
// than the active window's.
func weeklyTip(p *burn.ProviderStatus, at time.Time) string {
	wk := weekly(p)
	if wk == nil || wk.State.Severity() <= p.State.Severity() {
		return ""
	}
	switch {
	case wk.State == burn.Exhausted && wk.ResetsAt != nil:
		return " · weekly exhausted, resets " + text.Countdown(*wk.ResetsAt, at)
	case wk.State == burn.Exhausted:
		return " · weekly exhausted"
	case wk.RunoutAt != nil && (wk.ResetsAt == nil || wk.RunoutAt.Before(*wk.ResetsAt)):
		return " · weekly " + text.Percent(wk.UsedPercent) + ", runs out " + text.Countdown(*wk.RunoutAt, at)
	}
	return " · weekly " + text.Percent(wk.UsedPercent)
}

// tokenRate is what a provider's live sessions spend, in tokens a second.
func tokenRate(prov burn.Provider, sessions []burn.SessionStatus) float64 {
	var sum float64
	for _, s := range sessions {
		if s.Provider == prov && (s.RateKind == burn.Measured || s.RateKind == burn.Provisional) && s.TokensPerS > 0 {
			sum += s.TokensPerS
		}
	}
	return sum
}

// tokens is a token rate: "350 tok/s", "1.2k tok/s".
func tokens(tps float64) string {
	if tps >= 999.5 {
		return strconv.FormatFloat(tps/1000, 'f', 1, 64) + "k tok/s"
	}
	return strconv.FormatFloat(math.Max(tps, 0), 'f', 0, 64) + " tok/s"
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

// renderGroup is one provider's rows.
func renderGroup(p *burn.ProviderStatus, sessions []burn.SessionStatus, at time.Time, loc *time.Location, mode string, maxRows int, unproven bool) group {
	g := group{Header: noFigure(p, " · "), Weekly: weeklyRow(p, at, loc)}
	if g.Header == "" {
		w := p.Window
		g.Header = text.ProviderName(p.Provider, p.AccountLabel) + " " + windowName(w) + " " + text.Percent(w.UsedPercent) + resets(w, at, loc)
		if !w.Fresh {
			g.Header += " · as of " + text.Clock(w.ObservedAt, at, loc)
		}
		g.Runout = "  " + runoutRow(p, at, loc, unproven)
	} else if tps := tokenRate(p.Provider, sessions); tps > 0 && noPercent(p) {
		g.Runout = "  " + tokens(tps) + " · no percent to turn into m/h"
	}
	// A window that has reset has no burn yet either: no share to show.
	g.Sessions, g.More = sessionRows(p, sessions, mode, maxRows, noPercent(p) || !p.Burn.Known())
	// Below a tenth of a quota minute per hour is rounding noise.
	if mode != SessionsNever && p.ElsewhereQuotaMinutesPerHour >= 0.1 {
		g.Elsewhere = "    elsewhere " + burnRate(p.ElsewhereQuotaMinutesPerHour, p.Burn.Marker() != "") + " (no local session)"
	}
	return g
}

// weeklyRow is the weekly window's row beside another active window.
func weeklyRow(p *burn.ProviderStatus, at time.Time, loc *time.Location) string {
	wk := weekly(p)
	switch {
	case wk == nil:
		return ""
	case wk.Reset:
		return "  weekly has reset"
	case wk.State == burn.Exhausted:
		return "  weekly exhausted" + resets(wk, at, loc)
	}
	s := "  weekly " + text.Percent(wk.UsedPercent)
	if b := text.BurnLasting(wk.Burn); b != "" {
		s += " · " + b
	}
	if wk.RunsOut() {
		s += " · runs out " + text.Clock(*wk.RunoutAt, at, loc)
	}
	return s + resets(wk, at, loc)
}

// sessionRows are the sessions the mode lists, in burn's rank order, at
// most maxRows, then how many more there are.
func sessionRows(p *burn.ProviderStatus, sessions []burn.SessionStatus, mode string, maxRows int, noPercent bool) (rows []string, more string) {
	var listed []burn.SessionStatus
	for _, s := range sessions {
		if mode != SessionsNever && s.Provider == p.Provider && (mode == SessionsAlways || s.RateKind != burn.Idle) {
			listed = append(listed, s)
		}
	}
	names := text.SessionNames(listed)
	for i := range listed[:min(len(listed), maxRows)] {
		rows = append(rows, sessionRow(p, &listed[i], names[i], noPercent))
	}
	switch n := len(listed) - maxRows; {
	case n == 1:
		more = "    +1 session"
	case n > 1:
		more = fmt.Sprintf("    +%d sessions", n)
	}
	return rows, more
}

// resets is " · resets 15:00", or " · resets by 15:00" when no source said
// and the time is the latest the window can reset.
func resets(w *burn.WindowStatus, at time.Time, loc *time.Location) string {
	switch {
	case w.ResetsAt == nil:
		return ""
	case w.ResetsAtEstimated:
		return " · resets by " + text.Clock(*w.ResetsAt, at, loc)
	}
	return " · resets " + text.Clock(*w.ResetsAt, at, loc)
}

// runoutRow is the burn against the pace that lasts, and where it leads:
// "104m/h · lasts at ≤84 · runs out 14:05, 25m before the reset". The words
// are the window's own: a snapshot from a file can hold its run-out without
// the provider's copy.
func runoutRow(p *burn.ProviderStatus, at time.Time, loc *time.Location, unproven bool) string {
	switch {
	case p.State == burn.Exhausted:
		return text.Outcome(p.Window, at, loc, unproven)
	case !p.Burn.Known():
		return "no burn figure yet (one more sample)"
	}
	return text.BurnLasting(p.Burn) + " · " + text.Outcome(p.Window, at, loc, unproven)
}

// sessionRow is "my-app 38m/h · pause → +40m", "shop-api ~65m/h · waiting ·
// pause → lasts", "docs · idle": a waiting session keeps its fading share, as
// the question is whether to answer it. Without a percent, only tokens.
func sessionRow(p *burn.ProviderStatus, s *burn.SessionStatus, name string, noPercent bool) string {
	row := "    " + name
	switch {
	case s.RateKind == burn.Idle:
		return row + " · idle"
	case noPercent && s.RateKind == burn.Waiting:
		return row + " · waiting"
	case noPercent:
		row += " " + tokens(s.TokensPerS)
	case s.RateKind == burn.Waiting && s.QuotaMinutesPerHour <= 0:
		return row + " · waiting"
	default:
		// A first turn's rate, a waiting session's fading share and any
		// share of an estimated burn are estimates.
		est := s.RateKind == burn.Provisional || s.RateKind == burn.Waiting || p.Burn.Marker() != ""
		row += " " + burnRate(s.QuotaMinutesPerHour, est)
	}
	switch {
	case s.Agents == 1:
		row += " · 1 subagent"
	case s.Agents > 1:
		row += fmt.Sprintf(" · %d subagents", s.Agents)
	}
	if s.RateKind == burn.Waiting {
		row += " · waiting"
	}
	if pause := pauseImpact(p, s); pause != "" && !noPercent {
		row += " · pause → " + pause
	}
	return row
}

// pauseImpact is what pausing a session buys when the window runs out before
// its reset: "lasts", "+40m", or "" when it does not matter; the week first
// when it is the window that binds ("weekly +9h00m").
func pauseImpact(p *burn.ProviderStatus, s *burn.SessionStatus) string {
	if (!p.Window.RunsOut() && s.PauseWindow == "") || s.QuotaMinutesPerHour <= 0 {
		return ""
	}
	var impact string
	switch {
	case s.PauseLastsToReset:
		impact = "lasts"
	case s.PauseGainMinutes < 1:
		return ""
	default:
		impact = "+" + text.Minutes(s.PauseGainMinutes)
	}
	if s.PauseWindow != "" {
		impact = string(s.PauseWindow) + " " + impact
	}
	return impact
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

func windowName(w *burn.WindowStatus) string {
	c := w.Class
	if c == "" {
		c = burn.ClassOf(w.Minutes)
	}
	return string(c)
}

// shortTip fits a tooltip into limit UTF-16 units (the Windows tray keeps
// 127): first each line's reset countdown goes (the least urgent figure),
// then the end of the text, marked "…".
func shortTip(tip string, limit int) string {
	units := func(s string) int { return len(utf16.Encode([]rune(s))) }
	if units(tip) <= limit {
		return tip
	}
	lines := strings.Split(tip, "\n")
	for i, l := range lines {
		if j := strings.Index(l, " · resets in "); j >= 0 {
			end := strings.Index(l[j+1:], " · ")
			if end < 0 {
				lines[i] = l[:j]
			} else {
				lines[i] = l[:j] + l[j+1+end:]
			}
		}
	}
	tip = strings.Join(lines, "\n")
	rs := []rune(tip)
	for units(string(rs)) > limit {
		rs = append(rs[:len(rs)-2], '…')
	}
	return string(rs)
}
