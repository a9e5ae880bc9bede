package runway

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
	"github.com/agentrunway/runway/internal/printable"
)

// Line renders a snapshot as the one-line status `runway now` prints:
//
//	claude 5h 42% 38m/h ▸14:05 (25m before reset) · codex 5h 12% 6m/h ☺
//
// Times are in loc. A figure that is not fresh says how old it is.
func Line(s burn.Snapshot, loc *time.Location) string {
	if len(s.Providers) == 0 {
		return "no agent data"
	}
	parts := make([]string, 0, len(s.Providers))
	for _, p := range s.Providers {
		parts = append(parts, ProviderLine(p, s.At, loc))
	}
	return strings.Join(parts, " · ")
}

// ProviderLine is one provider's part of Line: its active window, and its
// weekly window too when that one is the pressing one.
func ProviderLine(p burn.ProviderStatus, now time.Time, loc *time.Location) string {
	w := p.Window
	if w == nil {
		return p.Name() + " no data"
	}
	line := p.Name() + " " + WindowLine(w, now, loc)
	if wk := p.Weekly; wk != nil && wk.Class != w.Class && wk.Pressing() {
		line += ", " + WindowLine(wk, now, loc)
	}
	return line
}

// WindowLine renders one window: class, used percent (with its age when
// not fresh), burn and verdict, e.g. "5h 42% 38m/h ▸14:05 (25m before
// reset)".
func WindowLine(w *burn.WindowStatus, now time.Time, loc *time.Location) string {
	var b strings.Builder
	b.WriteString(string(w.Class))
	if w.Reset {
		// The old figure is gone with its window; the new one is unknown.
		if w.ResetsAt != nil {
			fmt.Fprintf(&b, " reset at %s, no sample since", figure.Clock(*w.ResetsAt, now, loc))
		} else {
			b.WriteString(" reset, no sample since")
		}
		return b.String()
	}
	if w.State == burn.NoData {
		return b.String() + " no data"
	}
	fmt.Fprintf(&b, " %s", figure.Percent(w.UsedPercent))
	if !w.Fresh {
		fmt.Fprintf(&b, " (%s old)", Span(now.Sub(w.ObservedAt)))
	}
	if w.State == burn.Exhausted {
		if w.ResetsAt != nil {
			fmt.Fprintf(&b, " ✖ resets %s", figure.Clock(*w.ResetsAt, now, loc))
		} else {
			b.WriteString(" ✖")
		}
		return b.String()
	}
	if w.Burn.Method != burn.MethodNone && w.Burn.Method != "" {
		fmt.Fprintf(&b, " %s%sm/h", w.Burn.Marker(), Rate(w.Burn.QuotaMinutesPerHour))
	}
	if w.State == burn.Low {
		b.WriteString(" low")
	}
	switch {
	case w.RunoutAt != nil && (w.State == burn.RunoutBeforeReset || w.State == burn.Low):
		fmt.Fprintf(&b, " ▸%s", figure.Clock(*w.RunoutAt, now, loc))
		if w.ResetsAt != nil && w.ResetsAt.After(*w.RunoutAt) {
			fmt.Fprintf(&b, " (%s before reset)", Span(w.ResetsAt.Sub(*w.RunoutAt)))
		}
	case w.State == burn.OnTrack:
		b.WriteString(" ☺")
	}
	return b.String()
}

// Rate prints quota minutes per hour: one decimal below 10, whole above.
func Rate(mh float64) string {
	if mh < 9.95 {
		return fmt.Sprintf("%.1f", mh)
	}
	return fmt.Sprintf("%.0f", mh)
}

// Span prints a duration as "45s", "25m" or "1h05m", "2d3h".
func Span(d time.Duration) string {
	if d < 0 {
		d = -max(d, -math.MaxInt64) // the most negative has no positive
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Report renders a snapshot over several lines: each provider's windows,
// burn and verdict, then its sessions ranked by burn with their pause
// impact. `runway demo` and `runway now --long` print it.
func Report(s burn.Snapshot, loc *time.Location) string {
	var b strings.Builder
	if len(s.Providers) == 0 {
		b.WriteString("no account data and no active session\n")
	}
	for _, p := range s.Providers {
		fmt.Fprintf(&b, "%s\n", ProviderLine(p, s.At, loc))
		for _, w := range []*burn.WindowStatus{p.Window, p.Weekly} {
			if w == nil || (w != p.Window && p.Window != nil && w.Class == p.Window.Class) {
				continue
			}
			switch {
			case w.Reset && w.ResetsAt != nil:
				fmt.Fprintf(&b, "  %-7s reset at %s, no sample since", w.Class, figure.Clock(*w.ResetsAt, s.At, loc))
			default:
				fmt.Fprintf(&b, "  %-7s %6s used", w.Class, figure.Percent(w.UsedPercent))
				if w.ResetsAt != nil {
					fmt.Fprintf(&b, ", resets %s", figure.Clock(*w.ResetsAt, s.At, loc))
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
		if w := p.Window; w != nil {
			fmt.Fprintf(&b, "  %-7s %s\n", "burn", burnVerdict(w, s.At, loc))
		}
		if wk := p.Weekly; wk != nil && p.Window != nil && wk.Class != p.Window.Class && wk.Pressing() {
			fmt.Fprintf(&b, "  %-7s %s\n", "weekly", burnVerdict(wk, s.At, loc))
		}
		if p.ElsewhereQuotaMinutesPerHour > 0.05 {
			fmt.Fprintf(&b, "  elsewhere %s m/h (burn no local session explains)\n", Rate(p.ElsewhereQuotaMinutesPerHour))
		}
		mine := s.SessionsOfStatus(p)
		for i, name := range figure.SessionNames(mine) {
			fmt.Fprintf(&b, "  %s\n", SessionLine(mine[i], name))
		}
	}
	return b.String()
}

// burnVerdict says how fast a window burns and where that leads.
func burnVerdict(w *burn.WindowStatus, now time.Time, loc *time.Location) string {
	switch {
	case w.Reset || w.State == burn.NoData:
		return "no sample of this window yet"
	case w.State == burn.Exhausted:
		return "exhausted until the reset"
	case w.Burn.Method == burn.MethodNone:
		return "not enough samples yet"
	}
	v := fmt.Sprintf("%s m/h (%s)", Rate(w.Burn.QuotaMinutesPerHour), w.Burn.Label())
	if w.RunoutAt != nil && w.RunoutMinutesBeforeReset > 0 {
		return v + fmt.Sprintf(", runs out %s, %s before the reset", figure.Clock(*w.RunoutAt, now, loc), Span(time.Duration(w.RunoutMinutesBeforeReset*float64(time.Minute))))
	}
	return v + ", lasts to the reset"
}

// SessionLine is one session's row: its name (figure.SessionNames), burn,
// token rate, state and what pausing it buys.
func SessionLine(ss burn.SessionStatus, name string) string {
	if ss.Agents > 0 {
		name += fmt.Sprintf(" +%d agent", ss.Agents)
		if ss.Agents > 1 {
			name += "s"
		}
	}
	if ss.RateKind == burn.Idle || (ss.RateKind == burn.Waiting && ss.QuotaMinutesPerHour <= 0) {
		return fmt.Sprintf("%-24s %6s      %12s  %s", name, "—", "", ss.RateKind)
	}
	line := fmt.Sprintf("%-24s %6s m/h  %6.0f tok/s  %s", name, Rate(ss.QuotaMinutesPerHour), ss.TokensPerS, ss.RateKind)
	if ss.RateKind == burn.Waiting {
		// Between usage events its share is its burst's rate, fading: a
		// figure, but not a measured one.
		line = fmt.Sprintf("%-24s %6s m/h  %12s  %s", name, "~"+Rate(ss.QuotaMinutesPerHour), "", ss.RateKind)
	}
	switch {
	case ss.PauseGainMinutes <= 0: // not under pressure: pausing buys nothing to show
	case ss.PauseLastsToReset:
		line += "  pause → lasts to reset"
	case ss.PauseGainMinutes >= 1:
		line += fmt.Sprintf("  pause → +%s", Span(time.Duration(ss.PauseGainMinutes*float64(time.Minute))))
	}
	return line
}
