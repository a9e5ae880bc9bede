package text

import (
	"time"

	"github.com/agentrunway/runway/burn"
)

// Burn is a window's burn as shown: "38m/h", "~38m/h" for an estimate; ""
// when it has no figure (unknown is not 0).
func Burn(b burn.Burn) string {
	if !b.Known() {
		return ""
	}
	return b.Marker() + PerHour(b.QuotaMinutesPerHour)
}

// lasting is the pace that lasts to the reset, in the burn's unit: "lasts
// at ≤84"; "" without a burn figure or anything left to last.
func lasting(b burn.Burn) string {
	if !b.Known() || !(b.SustainableQuotaMinutesPerHour > 0) {
		return ""
	}
	return "lasts at ≤" + Rate(b.SustainableQuotaMinutesPerHour)
}

// BurnLasting is a burn with the pace that lasts: "107m/h · lasts at ≤84".
func BurnLasting(b burn.Burn) string {
	if l := lasting(b); l != "" {
		return Burn(b) + " · " + l
	}
	return Burn(b)
}

// beforeReset is how much a run-out beats the reset: "25m before the reset".
func beforeReset(d time.Duration) string { return Span(d) + " before the reset" }

// Outcome says where a live window's burn leads: "runs out 14:05, 25m
// before the reset", "on track to the reset", "exhausted until 15:00", "low,
// " in front for a low window; "" when it has no figure. unproven: the gate
// cannot tell (burn.Snapshot.Unproven), so the window is not said to last.
func Outcome(w *burn.WindowStatus, now time.Time, loc *time.Location, unproven bool) string {
	switch {
	case w == nil || w.Reset || w.State == burn.NoData:
		return ""
	case w.State == burn.Exhausted && w.ResetsAt != nil:
		return "exhausted until " + Clock(*w.ResetsAt, now, loc)
	case w.State == burn.Exhausted:
		return "exhausted until the reset"
	}
	var s string
	switch {
	case w.RunsOut():
		s = "runs out " + Clock(*w.RunoutAt, now, loc)
		if w.ResetsAt != nil {
			s += ", " + beforeReset(w.ResetsAt.Sub(*w.RunoutAt))
		}
	case w.Unproven():
		s = "not known to last: the percent rises faster"
	case (w.State == burn.OnTrack || w.State == burn.Low) && unproven:
		s = "not known to last"
	case w.State == burn.OnTrack || w.State == burn.Low:
		s = "on track to the reset"
	default:
		return ""
	}
	if w.State == burn.Low {
		s = "low, " + s
	}
	return s
}
