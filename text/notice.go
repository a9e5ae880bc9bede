package text

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
)

// Notice is the notification for a notice, leading with how long is left
// ("Claude 5h runs out in 8m — 20:09, 1h12m before the reset"), then what
// to pause. Countdowns run from now; times are in loc (time.Local if nil).
func Notice(n burn.Notice, now time.Time, loc *time.Location) (summary, body string) {
	if loc == nil {
		loc = time.Local
	}
	window := ProviderName(n.Provider, n.AccountLabel) + " " + string(n.Window)
	// when is "in 8m — 20:09": the countdown first, the clock after.
	when := func(t time.Time) string {
		return Countdown(t, now) + " — " + Clock(t, now, loc)
	}
	resets := ""
	if n.ResetsAt != nil {
		resets = "It resets " + when(*n.ResetsAt) + "."
	}
	switch n.Kind {
	case burn.NoticeBurningFast:
		summary = window + " is burning fast"
		if n.RunoutAt != nil {
			summary = window + " runs out " + when(*n.RunoutAt)
			if n.ResetsAt != nil {
				summary += ", " + beforeReset(n.ResetsAt.Sub(*n.RunoutAt))
			}
		}
		body = join(topSentence(n), paceSentence(n))
	case burn.NoticeLow:
		left := math.Max(0, math.Floor(100-n.UsedPercent))
		summary = fmt.Sprintf("%s is low: %.0f%% left", window, left)
		if n.RunoutAt != nil && (n.ResetsAt == nil || n.RunoutAt.Before(*n.ResetsAt)) {
			summary = fmt.Sprintf("%s runs out %s: %.0f%% left", window, when(*n.RunoutAt), left)
		}
		body = join(join(topSentence(n), paceSentence(n)), resets)
	case burn.NoticeExhausted:
		summary = window + " is exhausted"
		if n.ResetsAt != nil {
			summary += ", resets " + when(*n.ResetsAt)
		}
		body = "Agents on this account stall until the reset."
	case burn.NoticeReset:
		summary = window + " has reset"
		body = "The window is fresh again."
	default:
		summary = window + ": " + string(n.Kind)
	}
	return summary, body
}

// topSentence names the session burning most and what pausing it buys.
func topSentence(n burn.Notice) string {
	t := n.Top
	if t == nil || t.QuotaMinutesPerHour <= 0 {
		return "No local session explains the burn: it comes from elsewhere (another machine, the web app)."
	}
	s := SessionNames([]burn.SessionStatus{*t})[0] + " burns " + PerHour(t.QuotaMinutesPerHour)
	switch {
	case n.RunoutAt == nil:
	case t.PauseLastsToReset:
		return s + "; pausing it lasts to the reset."
	case t.PauseGainMinutes >= 1:
		return s + "; pausing it buys " + Minutes(t.PauseGainMinutes) + "."
	}
	return s + "."
}

// paceSentence reads the window's burn against the pace that lasts to the
// reset: "The window burns 107m/h; up to 84m/h lasts to the reset."
func paceSentence(n burn.Notice) string {
	if l := n.Burn.SustainableQuotaMinutesPerHour; n.Burn.Known() && l > 0 {
		return "The window burns " + Burn(n.Burn) + "; up to " + PerHour(l) + " lasts to the reset."
	}
	return ""
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

// ProviderName is a provider's name as a person reads it, with its login's
// label when it has several: "Claude", "Claude (work)".
func ProviderName(p burn.Provider, login string) string {
	name := "?"
	switch {
	case p == burn.Claude:
		name = "Claude"
	case p == burn.Codex:
		name = "Codex"
	case p != "":
		name = strings.ToUpper(string(p[:1])) + string(p[1:])
	}
	if login != "" {
		name += " (" + login + ")"
	}
	return name
}
