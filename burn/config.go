package burn

import (
	"slices"
	"time"
)

// Config holds the thresholds of the model. DefaultConfig gives the values
// docs/burn-model.md names; a zero duration or count takes its default, so a
// caller may set only what it changes.
type Config struct {
	// LowPercent is the remaining percent at or below which a window is low.
	// Zero makes only an exhausted window low, which turns the low state off.
	LowPercent float64
	// NotifyReset sends the optional "reset" notice when a window that was
	// low or exhausted has reset.
	NotifyReset bool

	// SessionFresh: a session's rate counts only while its newest usage
	// event is at most this old (30 s).
	SessionFresh time.Duration
	// Presence: a session without a fresh rate is still listed as waiting
	// while its newest line is at most this old (75 s), or PresenceAfterTurn
	// (45 s) when that line ended the agent's turn.
	Presence          time.Duration
	PresenceAfterTurn time.Duration
	// FutureSkew: events and samples dated further ahead of now are dropped (5 s).
	FutureSkew time.Duration
	// BurstGap: a burst is a run of events at most this far apart (30 min).
	BurstGap time.Duration
	// BurstGapAfterTurn: after a response that ended its turn, a longer
	// gap is the user away (a coffee break, not a tool run) and the burst
	// starts after it (5 min). Over 30 min it spread a resumed session's
	// first responses over the pause: after 8 minutes away the burn read
	// a third low for ten minutes (TestScenarioChange, "session resumes
	// after a pause"). A tool run ends no turn, so a session working
	// through long builds keeps its burst.
	BurstGapAfterTurn time.Duration
	// PauseDefault: how long a pause after a turn's end keeps the
	// session's pace before it reads as a stop, until the user's own
	// pauses are learned (1 min; docs/burn-model.md, "Session rates").
	PauseDefault time.Duration
	// BurstMinSpan: a burst shorter than this (10 s) gives no measured rate.
	BurstMinSpan time.Duration
	// SessionHorizon bounds the burst walk-back so a session's rate covers
	// about the same recent past as the account velocity (15 min). Negative
	// walks the whole burst, as the reference does.
	SessionHorizon time.Duration
	// ProvisionalMin and ProvisionalMax bound the turn length (2 s, 120 s)
	// from which a first turn's provisional rate is taken.
	ProvisionalMin time.Duration
	ProvisionalMax time.Duration
	// WaitingShare: a waiting session (no usage for SessionFresh but still
	// alive) keeps a share of the burn at its burst's rate over the time up
	// to now, instead of none (the reference), so a tool run does not hand
	// its burn to its peers. Off: only fresh sessions share.
	WaitingShare bool
	// IdleLookback: idle sessions are listed only when their last event is
	// inside the active window and at most this old (5 h).
	IdleLookback time.Duration

	// VelocityMinSpan: account velocity is measured over samples at least
	// this far apart (60 s).
	VelocityMinSpan time.Duration
	// VelocityFresh: a velocity counts while its newest sample is at most
	// this old (3 min).
	VelocityFresh time.Duration
	// VelocityHold: once no source gives a fresh velocity, the last one
	// measured on the current window instance is still projected while
	// its newest sample is at most this old (15 min), a local session that
	// burned over its span has not ended its turn, no newer sample
	// contradicts it, and it runs the window dry sooner than the fallback
	// (calibrated or average) burn would: Claude Code feeds its statusline
	// only after a reply, so a long tool call leaves the finest source
	// quiet while the work goes on. The window is then not fresh. Negative
	// turns the hold off (the reference: the fallback at once).
	VelocityHold time.Duration
	// VelocityHorizon is how far back the velocity of a 5-hour window looks
	// (15 min); other windows scale it by their length, so a weekly window
	// looks back about 8 h where whole-percent ticks are hours apart.
	VelocityHorizon time.Duration
	// Calibrate: burn is the local token rate at the percent per token
	// learned over CalibrationSpan (60 min, scaled by the window's length)
	// of the window's samples (docs/burn-model.md, "Calibration") when there is no fresh
	// velocity (instead of the window's average: method "calibrated"), and
	// when a coarse source's velocity agrees with it within one step over
	// its span (finer than the steps: method stays "measured"). Off: the
	// reference.
	Calibrate       bool
	CalibrationSpan time.Duration
	// SampleFresh: a window's shown sample is fresh while at most this old (3 min).
	SampleFresh time.Duration
	// InstanceJitter: samples whose resets_at differ by at most this much
	// (120 s) describe the same window instance.
	InstanceJitter time.Duration

	// BurningFast lists the urgency buckets, in minutes before run-out, of
	// the burning-fast notice (60, 30, 10). The smallest is critical.
	BurningFast []int
	// Rearm: a burning-fast bucket fires again in the same window instance
	// only after the projection has stayed on track this long (15 min).
	Rearm time.Duration
}

// DefaultConfig is the model as docs/burn-model.md describes it.
func DefaultConfig() Config {
	return Config{
		LowPercent:        10,
		NotifyReset:       false,
		SessionFresh:      30 * time.Second,
		Presence:          75 * time.Second,
		PresenceAfterTurn: 45 * time.Second,
		FutureSkew:        5 * time.Second,
		BurstGap:          30 * time.Minute,
		BurstGapAfterTurn: 5 * time.Minute,
		BurstMinSpan:      10 * time.Second,
		PauseDefault:      time.Minute,
		SessionHorizon:    15 * time.Minute,
		ProvisionalMin:    2 * time.Second,
		ProvisionalMax:    120 * time.Second,
		IdleLookback:      5 * time.Hour,
		WaitingShare:      true,
		VelocityMinSpan:   60 * time.Second,
		VelocityFresh:     3 * time.Minute,
		VelocityHold:      15 * time.Minute,
		VelocityHorizon:   15 * time.Minute,
		Calibrate:         true,
		CalibrationSpan:   time.Hour,
		SampleFresh:       3 * time.Minute,
		InstanceJitter:    120 * time.Second,
		BurningFast:       []int{60, 30, 10},
		Rearm:             15 * time.Minute,
	}
}

// withDefaults fills every zero threshold from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	dur := func(p *time.Duration, def time.Duration) {
		if *p == 0 {
			*p = def
		}
	}
	dur(&c.SessionFresh, d.SessionFresh)
	dur(&c.Presence, d.Presence)
	dur(&c.PresenceAfterTurn, d.PresenceAfterTurn)
	dur(&c.FutureSkew, d.FutureSkew)
	dur(&c.BurstGap, d.BurstGap)
	dur(&c.BurstGapAfterTurn, d.BurstGapAfterTurn)
	dur(&c.BurstMinSpan, d.BurstMinSpan)
	dur(&c.PauseDefault, d.PauseDefault)
	dur(&c.SessionHorizon, d.SessionHorizon)
	dur(&c.ProvisionalMin, d.ProvisionalMin)
	dur(&c.ProvisionalMax, d.ProvisionalMax)
	dur(&c.IdleLookback, d.IdleLookback)
	dur(&c.VelocityMinSpan, d.VelocityMinSpan)
	dur(&c.VelocityFresh, d.VelocityFresh)
	dur(&c.VelocityHold, d.VelocityHold)
	dur(&c.VelocityHorizon, d.VelocityHorizon)
	dur(&c.SampleFresh, d.SampleFresh)
	dur(&c.CalibrationSpan, d.CalibrationSpan)
	dur(&c.InstanceJitter, d.InstanceJitter)
	dur(&c.Rearm, d.Rearm)
	c.BurningFast = slices.DeleteFunc(slices.Clone(c.BurningFast), func(m int) bool { return m <= 0 })
	if len(c.BurningFast) == 0 {
		c.BurningFast = d.BurningFast
	}
	if c.LowPercent < 0 {
		c.LowPercent = 0
	}
	return c
}
