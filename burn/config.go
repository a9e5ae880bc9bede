package burn

import (
	"reflect"
	"slices"
	"time"
)

// Config holds the thresholds of the model (docs/burn-model.md,
// "Constants"); a zero duration or count takes its default.
type Config struct {
	LowPercent  float64 // remaining percent at or below which a window is low; 0: off
	NotifyReset bool    // send the optional "reset" notice

	SessionFresh      time.Duration // a session's rate counts while its newest event is this recent
	Presence          time.Duration // a session without a fresh rate is listed as waiting this long
	PresenceAfterTurn time.Duration // the same, when its newest line ended the turn
	FutureSkew        time.Duration // events and samples dated further ahead are dropped
	BurstGap          time.Duration // a burst is a run of events at most this far apart
	BurstGapAfterTurn time.Duration // a longer gap after a turn's end is the user away
	PauseDefault      time.Duration // the usual pause until the user's own is learned
	BurstMinSpan      time.Duration // a shorter burst gives no measured rate
	SessionHorizon    time.Duration // how far back a burst is walked; negative: all of it
	ProvisionalMin    time.Duration // turn lengths a first turn's provisional rate is taken from
	ProvisionalMax    time.Duration
	WaitingShare      bool          // a waiting session keeps a fading share; off: only fresh ones
	IdleLookback      time.Duration // idle sessions are listed this far back, inside the window

	VelocityMinSpan time.Duration // the shortest span a velocity is measured over
	VelocityFresh   time.Duration // a velocity counts while its newest sample is this recent
	VelocityHold    time.Duration // how long a quiet source's velocity may be held; negative: off
	VelocityHorizon time.Duration // how far back a 5-hour window's velocity looks (scaled by length)
	Calibrate       bool          // the nowcast and calibrated burn; off: velocity or average alone
	CalibrationSpan time.Duration // the span the percent per token is learned over (scaled)
	SampleFresh     time.Duration // a window's figure is fresh while its sample is this recent
	InstanceJitter  time.Duration // resets this close name one window instance

	BurningFast []int         // burning-fast urgency buckets, minutes before run-out; the smallest is critical
	Rearm       time.Duration // calm time before burning-fast buckets fire again
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
	// Every duration is a threshold whose zero means "the default".
	v, def := reflect.ValueOf(&c).Elem(), reflect.ValueOf(d)
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[time.Duration]() && f.Int() == 0 {
			f.Set(def.Field(i))
		}
	}
	c.BurningFast = slices.DeleteFunc(slices.Clone(c.BurningFast), func(m int) bool { return m <= 0 })
	if len(c.BurningFast) == 0 {
		c.BurningFast = d.BurningFast
	}
	if c.LowPercent < 0 {
		c.LowPercent = 0
	}
	return c
}
