package burn

import "time"

// State is the verdict on a provider's active window.
type State string

const (
	OnTrack           State = "on_track"            // lasts to the reset at this pace
	RunoutBeforeReset State = "runout_before_reset" // runs dry before the reset
	Low               State = "low"                 // remaining at or below the low threshold
	Exhausted         State = "exhausted"           // nothing left until the reset
	NoData            State = "no_data"             // no account sample for this window
)

// RateKind says how far a session's token rate can be trusted.
type RateKind string

const (
	Measured    RateKind = "measured"    // a burst of events ≥ 10 s long
	Provisional RateKind = "provisional" // first turn only, capped by peers
	Waiting     RateKind = "waiting"     // alive, no fresh usage: no number shown
	Idle        RateKind = "idle"        // gone quiet inside the window
)

// Method says how a provider's burn was obtained.
type Method string

const (
	MethodMeasured Method = "measured" // velocity from a fresh sample series
	MethodAverage  Method = "average"  // used % over the time since the window opened
	MethodNone     Method = "none"
)

// Snapshot is everything a surface shows, as of At. Its JSON form is stable:
// `runway now --json` prints it and the tray writes it for `runway now`.
type Snapshot struct {
	At        time.Time        `json:"at"`
	Providers []ProviderStatus `json:"providers"`
	Sessions  []SessionStatus  `json:"sessions"`
	Warnings  []string         `json:"warnings"`
}

// ProviderStatus is one provider's account: its active window (the 5-hour
// one when the provider has it, else the weekly one), the weekly window, the
// burn and where it leads.
type ProviderStatus struct {
	Provider Provider      `json:"provider"`
	Window   *WindowStatus `json:"window"`
	Weekly   *WindowStatus `json:"weekly"`
	Burn     Burn          `json:"burn"`
	RunoutAt *time.Time    `json:"runout_at"`
	State    State         `json:"state"`
	// ElsewhereQuotaMinutesPerHour is the burn no local session explains:
	// another machine, the web app, a session runway cannot see.
	ElsewhereQuotaMinutesPerHour float64 `json:"elsewhere_quota_minutes_per_hour"`
}

// WindowStatus is the sample a window's figures come from, with its age.
type WindowStatus struct {
	Class       WindowClass `json:"class"`
	Minutes     int         `json:"minutes"`
	UsedPercent float64     `json:"used_percent"`
	ResetsAt    *time.Time  `json:"resets_at"`
	Source      Source      `json:"source"`
	ObservedAt  time.Time   `json:"observed_at"`
	Fresh       bool        `json:"fresh"`
}

// Burn is how fast a provider's active window is being used.
type Burn struct {
	PercentPerS         float64 `json:"percent_per_s"`
	QuotaMinutesPerHour float64 `json:"quota_minutes_per_hour"`
	Method              Method  `json:"method"`
}

// SessionStatus is one agent session's share of its provider's burn.
type SessionStatus struct {
	Provider            Provider   `json:"provider"`
	ID                  string     `json:"id"`
	Project             string     `json:"project"`
	Model               string     `json:"model"`
	TokensPerS          float64    `json:"tokens_per_s"`
	RateKind            RateKind   `json:"rate_kind"`
	QuotaMinutesPerHour float64    `json:"quota_minutes_per_hour"`
	PauseRunoutAt       *time.Time `json:"pause_runout_at"`
	LastEventAt         time.Time  `json:"last_event_at"`
}

// QuotaMinutesPerHour converts a burn in percent per second of a window of
// the given length: 100 % of a 5-hour window is 300 quota minutes, so 60 m/h
// is exactly the pace that lasts to the reset.
func QuotaMinutesPerHour(percentPerS float64, windowMinutes int) float64 {
	return finite(percentPerS * float64(windowMinutes) / 100 * 3600)
}
