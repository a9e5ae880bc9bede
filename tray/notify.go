package tray

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

// Notifier delivers burn's notification decisions to the desktop.
type Notifier interface {
	Notify(n burn.Notice) error
	// Tell shows a message that answers a click (Options.Tell); it is
	// never paced.
	Tell(summary, body string) error
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

// NoticeText is the notification for a notice, as a person can act on it,
// leading with how long is left:
//
//	Claude 5h runs out in 8m — 20:09, 1h12m before the reset
//	my-app burns 38m/h; pausing it lasts to the reset.
//
// Countdowns run from now; times are shown in loc (time.Local when nil).
func NoticeText(n burn.Notice, now time.Time, loc *time.Location) (summary, body string) {
	if loc == nil {
		loc = time.Local
	}
	window := providerName(n.Provider) + " " + string(n.Window)
	// when is "in 8m — 20:09": the countdown first, the clock after.
	when := func(t time.Time) string {
		return text.Countdown(t, now) + " — " + text.Clock(t, now, loc)
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
				summary += ", " + text.Span(n.ResetsAt.Sub(*n.RunoutAt)) + " before the reset"
			}
		}
		body = topSentence(n)
	case burn.NoticeLow:
		left := math.Max(0, math.Floor(100-n.UsedPercent))
		summary = fmt.Sprintf("%s is low: %.0f%% left", window, left)
		if n.RunoutAt != nil && (n.ResetsAt == nil || n.RunoutAt.Before(*n.ResetsAt)) {
			summary = fmt.Sprintf("%s runs out %s: %.0f%% left", window, when(*n.RunoutAt), left)
		}
		body = join(topSentence(n), resets)
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
	s := text.SessionNames([]burn.SessionStatus{*t})[0] + " burns " + text.PerHour(t.QuotaMinutesPerHour)
	switch {
	case n.RunoutAt == nil:
	case t.PauseLastsToReset:
		return s + "; pausing it lasts to the reset."
	case t.PauseGainMinutes >= 1:
		return s + "; pausing it buys " + text.Minutes(t.PauseGainMinutes) + "."
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

// noticeIconSize is the side of a notification's icon: servers show it at
// 32 to 64 px, and scaling down stays sharper than scaling up.
const noticeIconSize = 64

// noticePNG is a notice's icon as a PNG.
func noticePNG(n burn.Notice) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, noticeIcon(n).draw(noticeIconSize)); err != nil {
		panic("tray: encoding an in-memory PNG: " + err.Error()) // cannot fail on a bytes.Buffer
	}
	return buf.Bytes()
}

// noticeIcon is the icon a notice carries: the window's used percent in
// the colour of its kind (red for critical ones).
func noticeIcon(n burn.Notice) iconKey {
	k := iconKey{Tone: toneWarn, Step: stepOf(n.UsedPercent)}
	switch {
	case n.Kind == burn.NoticeReset:
		k.Tone = toneOK
	case n.Critical || n.Kind == burn.NoticeLow || n.Kind == burn.NoticeExhausted:
		k.Tone = toneAlert
	}
	k.Text = strconv.Itoa(min(int(math.Round(max(n.UsedPercent, 0))), 100)) + "%"
	if n.Kind == burn.NoticeReset {
		k.Text, k.Step = "0%", 0
	}
	return k
}
