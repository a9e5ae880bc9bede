package burn

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Verdict is the one answer a gate, the tray's icon and the line agree on,
// over every window of every provider. Its value is `runway now --check`'s
// exit status.
type Verdict int

const (
	// Lasts: every window with data lasts to its reset.
	Lasts Verdict = 0
	// RunsOut: a window is low, or projected to run dry before its reset.
	RunsOut Verdict = 1
	// Blocked: a window is exhausted.
	Blocked Verdict = 2
	// CannotTell: runway could not read what it needs, or has no figure at
	// all: a gate must not read "I do not know" as "on track".
	CannotTell Verdict = 3
)

// windowVerdict is one window's verdict. Low counts as running out: the gate
// must never grow less cautious as a window runs dry.
func windowVerdict(w *WindowStatus) Verdict {
	if w == nil {
		return CannotTell
	}
	if w.Reset {
		return Lasts
	}
	switch w.State {
	case Exhausted:
		return Blocked
	case Low, RunoutBeforeReset:
		return RunsOut
	case OnTrack:
		if w.RunsOut() {
			return RunsOut
		}
		return Lasts
	}
	return CannotTell
}

// RunsOut says whether the window's projection beats its reset.
func (w *WindowStatus) RunsOut() bool {
	if w == nil || w.RunoutAt == nil {
		return false
	}
	return w.ResetsAt == nil || w.RunoutAt.Before(*w.ResetsAt)
}

// Pressing says a window's verdict is worth a person's attention: runs
// out, blocked or unproven.
func (w *WindowStatus) Pressing() bool {
	v := windowVerdict(w)
	return v == RunsOut || v == Blocked || w.Unproven()
}

// Windows is the provider's distinct windows: the active one, then the
// weekly one when it is another window.
func (p ProviderStatus) Windows() []*WindowStatus {
	var out []*WindowStatus
	if p.Window != nil {
		out = append(out, p.Window)
	}
	if p.Weekly != nil && (p.Window == nil || p.Weekly.Class != p.Window.Class) {
		out = append(out, p.Weekly)
	}
	return out
}

// WorstWindow is the window whose verdict is the provider's: the most
// severe one, the active window on a tie; nil without any figure.
func (p ProviderStatus) WorstWindow() *WindowStatus {
	var worst *WindowStatus
	for _, w := range p.Windows() {
		if windowVerdict(w) == CannotTell {
			continue
		}
		// Of two that last, the unproven one is the one to show.
		if worst == nil || windowVerdict(w).worse(windowVerdict(worst)) ||
			windowVerdict(w) == windowVerdict(worst) && (w.State.Severity() > worst.State.Severity() ||
				w.State.Severity() == worst.State.Severity() && w.Unproven() && !worst.Unproven()) {
			worst = w
		}
	}
	return worst
}

// worse orders verdicts for a gate: blocked, runs out, cannot tell, lasts.
// "Cannot tell" must never hide a window runway knows is running out.
func (v Verdict) worse(than Verdict) bool { return v.rank() > than.rank() }

func (v Verdict) rank() int {
	switch v {
	case Blocked:
		return 3
	case RunsOut:
		return 2
	case CannotTell:
		return 1
	}
	return 0
}

// Gate is the verdict over every window of every provider, with a reason a
// person can read: a gate that cannot see must not say "go"
// (docs/burn-model.md, "The verdict").
func Gate(s Snapshot) (Verdict, string) {
	v, why := Lasts, ""
	consider := func(x Verdict, reason string) {
		if x.worse(v) {
			v, why = x, reason
		}
	}
	known := false
	for _, p := range s.Providers {
		if w := p.WorstWindow(); w != nil {
			known = true
			consider(windowVerdict(w), fmt.Sprintf("%s %s %s", p.Name(), w.Class, w.State))
		}
		if w := p.Window; s.BurningBlind(p) {
			consider(CannotTell, fmt.Sprintf("%s %s: %s while its sessions burn, so nothing says how much of the new window they have used",
				p.Name(), w.Class, noFigure(w, s.At)))
		}
		if w := p.Window; guessedWhileBurning(s, p, w) {
			consider(CannotTell, fmt.Sprintf("%s %s: its newest percent is %d min old while its sessions burn, and nothing fresh says where it stands",
				p.Name(), w.Class, int(s.At.Sub(w.ObservedAt).Minutes())))
		}
		for _, w := range []*WindowStatus{p.Window, p.Weekly} {
			// "Lasts" is the old pace's word.
			if w.Unproven() {
				consider(CannotTell, fmt.Sprintf("%s %s: its percent rises faster than its burn figure, which is still catching up",
					p.Name(), w.Class))
			}
		}
	}
	if !known {
		consider(CannotTell, "no account figure at all (runway doctor says which source to set up)")
	}
	if len(s.Unread) > 0 {
		consider(CannotTell, "could not read "+strings.Join(s.Unread, "; "))
	}
	return v, why
}

// Unproven: the gate cannot tell, so no surface may say a window lasts
// (the line shows "?", the icon is grey, the menu says "not known to last").
func (s Snapshot) Unproven() bool {
	v, _ := Gate(s)
	return v == CannotTell
}

// BurningBlind: the provider's sessions burn while its active window has no
// figure: what they used of the new window is unknown.
func (s Snapshot) BurningBlind(p ProviderStatus) bool {
	w := p.Window
	return w != nil && (w.Reset || w.State == NoData) && s.Burning(p)
}

// Burning: a session of p burns, or waits between turns (its pace goes on).
func (s Snapshot) Burning(p ProviderStatus) bool {
	return s.anyOf(p, Measured, Provisional, Waiting)
}

// noFigure says why a window has no figure.
func noFigure(w *WindowStatus, now time.Time) string {
	if w.Reset && w.ResetsAt != nil {
		ago := now.Sub(*w.ResetsAt)
		if ago >= 2*time.Hour {
			return fmt.Sprintf("no sample since its reset %d h ago", int(ago.Hours()))
		}
		return fmt.Sprintf("no sample since its reset %d min ago", int(ago.Minutes()))
	}
	return "no sample of this window"
}

// anyOf says whether a session of p has one of the rate kinds.
func (s Snapshot) anyOf(p ProviderStatus, kinds ...RateKind) bool {
	return slices.ContainsFunc(s.SessionsOfStatus(p), func(x SessionStatus) bool { return slices.Contains(kinds, x.RateKind) })
}

// guessedWhileBurning: the active window's figure is old, sessions burn now
// and no token-backed estimate carries it forward.
func guessedWhileBurning(s Snapshot, p ProviderStatus, w *WindowStatus) bool {
	if w == nil || w.Fresh || w.Reset || w.State == Exhausted || w.State == NoData ||
		w.Burn.Method == MethodNowcast || w.Burn.Method == MethodCalibrated {
		return false
	}
	return s.anyOf(p, Measured, Provisional)
}
