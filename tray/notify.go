package tray

import (
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
)

// Notifier delivers burn's notification decisions to the desktop.
type Notifier interface {
	Notify(n burn.Notice) error
	Close() error
}

// ErrPaced means a notice was held back because too many were sent lately;
// the caller should not remember it as sent, so a later decision can
// deliver it.
var ErrPaced = errors.New("tray: notification held back by pacing")

// Paced lets notices through no faster than lim allows, so a flapping
// estimate cannot spam the desktop. Critical notices (exhausted) always pass.
func Paced(n Notifier, lim *rate.Limiter) Notifier {
	return &paced{Notifier: n, lim: lim}
}

type paced struct {
	Notifier
	lim *rate.Limiter
}

func (p *paced) Notify(n burn.Notice) error {
	if !n.Critical && !p.lim.Allow() {
		return ErrPaced
	}
	return p.Notifier.Notify(n)
}

// NoticeText is the notification for a notice, as a person can act on it:
//
//	Claude 5h runs out at 14:05, 25 min before the reset
//	my-app burns 38 m/h; pausing it lasts to the reset.
//
// Times are shown in loc (time.Local when nil).
func NoticeText(n burn.Notice, loc *time.Location) (summary, body string) {
	if loc == nil {
		loc = time.Local
	}
	window := providerName(n.Provider) + " " + string(n.Window)
	at := func(t time.Time) string {
		if n.Window == burn.Weekly {
			return t.In(loc).Format("Mon 15:04")
		}
		return t.In(loc).Format("15:04")
	}
	resets := ""
	if n.ResetsAt != nil {
		resets = "It resets at " + at(*n.ResetsAt) + "."
	}
	switch n.Kind {
	case burn.NoticeBurningFast:
		summary = window + " is burning fast"
		if n.RunoutAt != nil {
			summary = window + " runs out at " + at(*n.RunoutAt)
			if n.ResetsAt != nil {
				summary += ", " + duration(n.ResetsAt.Sub(*n.RunoutAt)) + " before the reset"
			}
		}
		body = topSentence(n)
	case burn.NoticeLow:
		left := math.Max(0, math.Floor(100-n.UsedPercent))
		summary = fmt.Sprintf("%s is low: %.0f%% left", window, left)
		body = join(topSentence(n), resets)
	case burn.NoticeExhausted:
		summary = window + " is exhausted"
		body = join(resets, "Agents on this account stall until then.")
		if resets == "" {
			body = "Agents on this account stall until the reset."
		}
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
	s := figure.SessionNames([]burn.SessionStatus{*t})[0] + " burns " + perHour(t.QuotaMinutesPerHour)
	switch {
	case n.RunoutAt == nil:
	case t.PauseLastsToReset:
		return s + "; pausing it lasts to the reset."
	case t.PauseGainMinutes >= 1:
		return s + "; pausing it buys " + duration(time.Duration(t.PauseGainMinutes*float64(time.Minute))) + "."
	}
	return s + "."
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

// noticeIcon is the gauge a notice is about, coloured by its kind.
func noticeIcon(n burn.Notice) iconKey {
	p := &burn.ProviderStatus{
		Window: &burn.WindowStatus{UsedPercent: n.UsedPercent},
		State:  burn.RunoutBeforeReset,
	}
	switch n.Kind {
	case burn.NoticeLow:
		p.State = burn.Low
	case burn.NoticeExhausted:
		p.State = burn.Exhausted
	case burn.NoticeReset:
		p.State = burn.OnTrack
	}
	return iconFor(p)
}
