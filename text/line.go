package text

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
)

// NoAgentData is what every surface says of a snapshot with no provider;
// its warnings say where runway looked.
const NoAgentData = "no agent data"

// Line renders a snapshot as the one-line status `runway now` prints:
//
//	claude 5h 42% 104m/h (lasts at ≤84) ▸14:05 (25m before the reset) · codex 5h 12% 6m/h (lasts at ≤88) ☺
//
// Times are in loc. A figure that is not fresh says how old it is.
func Line(s burn.Snapshot, loc *time.Location) string {
	if len(s.Providers) == 0 {
		return NoAgentData
	}
	parts := make([]string, 0, len(s.Providers))
	for _, p := range s.Providers {
		parts = append(parts, providerLine(s, p, loc))
	}
	return strings.Join(parts, " · ")
}

// providerLine is one provider's part of Line: its active window, and the
// weekly one too when it is pressing.
func providerLine(s burn.Snapshot, p burn.ProviderStatus, loc *time.Location) string {
	w := p.Window
	if w == nil {
		return p.Name() + " no data"
	}
	// Where the gate cannot tell, no window says it lasts (the icon is not green either).
	unproven := s.Unproven()
	line := p.Name() + " " + windowLine(w, s.At, loc, unproven)
	if s.BurningBlind(p) {
		// The gate cannot tell: say why beside the "?".
		line += ", sessions burn ?"
	}
	if wk := p.Weekly; wk != nil && wk.Class != w.Class && wk.Pressing() {
		line += ", " + windowLine(wk, s.At, loc, unproven)
	}
	return line
}

// windowLine renders one window: "5h 42% 104m/h (lasts at ≤84) ▸14:05 (25m
// before the reset)", with the percent's age when it is not fresh.
func windowLine(w *burn.WindowStatus, now time.Time, loc *time.Location, unproven bool) string {
	var b strings.Builder
	b.WriteString(string(w.Class))
	if w.Reset {
		// The old figure is gone with its window; the new one is unknown.
		if w.ResetsAt != nil {
			fmt.Fprintf(&b, " reset at %s, no sample since", Clock(*w.ResetsAt, now, loc))
		} else {
			b.WriteString(" reset, no sample since")
		}
		return b.String()
	}
	if w.State == burn.NoData {
		return b.String() + " no data"
	}
	fmt.Fprintf(&b, " %s", Percent(w.UsedPercent))
	if !w.Fresh {
		fmt.Fprintf(&b, " (%s old)", Span(now.Sub(w.ObservedAt)))
	}
	if w.State == burn.Exhausted {
		if w.ResetsAt != nil {
			fmt.Fprintf(&b, " ✖ resets %s", Clock(*w.ResetsAt, now, loc))
		} else {
			b.WriteString(" ✖")
		}
		return b.String()
	}
	if w.Burn.Known() {
		b.WriteString(" " + Burn(w.Burn))
		if l := lasting(w.Burn); l != "" {
			b.WriteString(" (" + l + ")")
		}
	}
	if w.State == burn.Low {
		b.WriteString(" low")
	}
	switch {
	case w.RunoutAt != nil && (w.State == burn.RunoutBeforeReset || w.State == burn.Low):
		fmt.Fprintf(&b, " ▸%s", Clock(*w.RunoutAt, now, loc))
		if w.ResetsAt != nil && w.ResetsAt.After(*w.RunoutAt) {
			fmt.Fprintf(&b, " (%s)", beforeReset(w.ResetsAt.Sub(*w.RunoutAt)))
		}
	case w.Unproven(), w.State == burn.OnTrack && unproven:
		b.WriteString(" ?")
	case w.State == burn.OnTrack:
		b.WriteString(" ☺")
	}
	return b.String()
}

// Report renders a snapshot over several lines: each provider's windows,
// burn and verdict, then its sessions ranked by burn with their pause
// impact. `runway demo` and `runway now --long` print it.
func Report(s burn.Snapshot, loc *time.Location) string {
	var b strings.Builder
	if len(s.Providers) == 0 {
		b.WriteString(NoAgentData + "\n")
	}
	unproven := s.Unproven()
	for _, p := range s.Providers {
		fmt.Fprintf(&b, "%s\n", providerLine(s, p, loc))
		for _, w := range p.Windows() {
			switch {
			case w.Reset && w.ResetsAt != nil:
				fmt.Fprintf(&b, "  %-7s reset at %s, no sample since", w.Class, Clock(*w.ResetsAt, s.At, loc))
			default:
				fmt.Fprintf(&b, "  %-7s %6s used", w.Class, Percent(w.UsedPercent))
				if w.ResetsAt != nil {
					fmt.Fprintf(&b, ", resets %s", Clock(*w.ResetsAt, s.At, loc))
					if w.ResetsAtEstimated {
						b.WriteString(" at the latest")
					}
				}
			}
			// The source's name comes from the sample log: printable.
			fmt.Fprintf(&b, "  (%s, %s ago", printable.String(string(w.Source)), Span(s.At.Sub(w.ObservedAt)))
			if !w.Fresh {
				b.WriteString(", not fresh")
			}
			b.WriteString(")\n")
		}
		switch w := p.Window; {
		case s.BurningBlind(p):
			fmt.Fprintf(&b, "  %-7s %s\n", "burn", "no sample of this window while its sessions burn: not known to last")
		case w != nil:
			fmt.Fprintf(&b, "  %-7s %s\n", "burn", burnVerdict(w, s.At, loc, unproven))
		}
		if wk := p.Weekly; wk != nil && p.Window != nil && wk.Class != p.Window.Class && wk.Pressing() {
			fmt.Fprintf(&b, "  %-7s %s\n", "weekly", burnVerdict(wk, s.At, loc, unproven))
		}
		if p.ElsewhereQuotaMinutesPerHour > 0.05 {
			fmt.Fprintf(&b, "  elsewhere %s (burn no local session explains)\n", PerHour(p.ElsewhereQuotaMinutesPerHour))
		}
		mine := s.SessionsOfStatus(p)
		kindWidth := 0
		for _, ss := range mine {
			kindWidth = max(kindWidth, len(ss.RateKind))
		}
		// Named among all of them: a hidden one still sets a shown one apart.
		names := SessionNames(mine)
		for i, name := range names[:min(len(names), reportSessions)] {
			fmt.Fprintf(&b, "  %s\n", sessionLine(mine[i], name, kindWidth, p.Burn.Known()))
		}
		if len(mine) > reportSessions {
			fmt.Fprintf(&b, "  %s\n", moreSessions(mine[reportSessions:], p.Burn.Known()))
		}
	}
	return b.String()
}

// reportSessions bounds the session rows Report lists per provider, as the
// tray and /metrics bound theirs: the busiest, then a count of the rest.
const reportSessions = 20

// moreSessions sums up the sessions a report does not list: how many, and
// what those burning burn together when the provider's burn is known.
func moreSessions(rest []burn.SessionStatus, known bool) string {
	line := fmt.Sprintf("+%d more", len(rest))
	burning, mh := 0, 0.0
	for _, x := range rest {
		if x.RateKind == burn.Measured || x.RateKind == burn.Provisional {
			burning++
			mh += x.QuotaMinutesPerHour
		}
	}
	switch {
	case burning > 0 && known:
		line += fmt.Sprintf(" (%d burning, %s together)", burning, PerHour(mh))
	case burning > 0:
		line += fmt.Sprintf(" (%d burning)", burning)
	}
	return line
}

// burnVerdict says how fast a window burns, against the pace that lasts,
// and where that leads: "107m/h (nowcast) · lasts at ≤84, runs out 22:11,
// 19m before the reset".
func burnVerdict(w *burn.WindowStatus, now time.Time, loc *time.Location, unproven bool) string {
	switch {
	case w.Reset || w.State == burn.NoData:
		return "no sample of this window yet"
	case w.State == burn.Exhausted:
		return Outcome(w, now, loc, unproven)
	case !w.Burn.Known():
		return "not enough samples yet"
	}
	v := fmt.Sprintf("%s (%s)", PerHour(w.Burn.QuotaMinutesPerHour), w.Burn.Label())
	if l := lasting(w.Burn); l != "" {
		v += " · " + l
	}
	return v + ", " + Outcome(w, now, loc, unproven)
}

// sessionLine is one session's row: name, burn, token rate, state and what
// pausing it buys. Without the provider's burn its share is "—", never 0.
func sessionLine(ss burn.SessionStatus, name string, kindWidth int, known bool) string {
	if ss.Agents > 0 {
		name += fmt.Sprintf(" +%d agent", ss.Agents)
		if ss.Agents > 1 {
			name += "s"
		}
	}
	// The pause column starts at one place on every row.
	kind := fmt.Sprintf("%-*s", kindWidth, ss.RateKind)
	if ss.RateKind == burn.Idle || (ss.RateKind == burn.Waiting && ss.QuotaMinutesPerHour <= 0) {
		return fmt.Sprintf("%-24s %9s  %12s  %s", name, "—", "", ss.RateKind)
	}
	share := "—"
	if known {
		share = PerHour(ss.QuotaMinutesPerHour)
	}
	line := fmt.Sprintf("%-24s %9s  %6.0f tok/s  %s", name, share, ss.TokensPerS, kind)
	if ss.RateKind == burn.Waiting {
		// Between usage events its share is its burst's rate, fading: a
		// figure, but not a measured one.
		line = fmt.Sprintf("%-24s %9s  %12s  %s", name, "~"+PerHour(ss.QuotaMinutesPerHour), "", kind)
	}
	if p := Pause(ss); p != "" {
		return line + "  pause → " + p
	}
	return strings.TrimRight(line, " ")
}

// Pause is what pausing a session buys: "lasts to reset", "+40m", "weekly
// +9h00m" when the week runs dry sooner; "" when it buys under a minute.
func Pause(ss burn.SessionStatus) string {
	var s string
	switch {
	case ss.PauseGainMinutes <= 0:
		return ""
	case ss.PauseLastsToReset:
		s = "lasts to reset"
	case ss.PauseGainMinutes >= 1:
		s = "+" + Minutes(ss.PauseGainMinutes)
	default:
		return ""
	}
	if ss.PauseWindow != "" {
		s = string(ss.PauseWindow) + " " + s
	}
	return s
}

// SessionStatusline is the statusline for one Claude session: its own
// burn, then its login's line (its folder's login before its first usage).
func SessionStatusline(d StatuslineData) string {
	s, sessionID := d.Snapshot, d.SessionID
	var this *burn.SessionStatus
	for i, ss := range s.Sessions {
		if ss.Provider == burn.Claude && ss.ID == sessionID {
			this = &s.Sessions[i]
			break
		}
	}
	account := "claude no data"
	login := d.Login
	if this != nil {
		login = this.Account
	}
	if p := s.ProviderOf(burn.Claude, login); p != nil {
		account = providerLine(s, *p, time.Local)
	} else if this == nil && login == "" {
		for _, p := range s.Providers {
			if p.Provider == burn.Claude {
				account = providerLine(s, p, time.Local)
			}
		}
	}
	switch {
	case this == nil || this.RateKind == burn.Idle:
		return account
	case this.RateKind == burn.Waiting && this.QuotaMinutesPerHour > 0:
		// Its fading share while it waits on a tool: not measured.
		return fmt.Sprintf("this ~%s waiting · %s", PerHour(this.QuotaMinutesPerHour), account)
	case this.QuotaMinutesPerHour > 0:
		return fmt.Sprintf("this %s · %s", PerHour(this.QuotaMinutesPerHour), account)
	}
	return fmt.Sprintf("this %s · %s", this.RateKind, account)
}
