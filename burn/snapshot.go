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
	// MethodMeasured: velocity from a fresh sample series, or the last one
	// held a while after its source went quiet (Config.VelocityHold; the
	// window is then not fresh).
	MethodMeasured Method = "measured"
	MethodAverage  Method = "average" // used % over the time since the window opened
	// MethodCalibrated: no fresh velocity, so the local sessions' token
	// rate times the percent per token the window's samples showed.
	MethodCalibrated Method = "calibrated"
	// MethodNowcast: a fresh velocity backs it, and the burn is the local
	// sessions' token rate now times the percent per token, plus the burn
	// no local log explains: it moves as soon as a session starts or stops.
	MethodNowcast Method = "nowcast"
	MethodNone    Method = "none"
)

// Snapshot is everything a surface shows, as of At. Its JSON form is stable:
// `runway now --json` prints it and the tray writes it for `runway now`.
type Snapshot struct {
	At        time.Time        `json:"at"`
	Providers []ProviderStatus `json:"providers"`
	Sessions  []SessionStatus  `json:"sessions"`
	Warnings  []string         `json:"warnings"`
	// Unread names what runway needed and could not read (its sample log,
	// an account source that failed where no other one answered): the
	// figures may then be missing or old, and Gate cannot say "on track".
	Unread []string `json:"unread,omitempty"`
}

// ProviderStatus is one provider's account: its active window (the 5-hour
// one when the provider has it, else the weekly one), the weekly window, the
// burn and where it leads. Burn, RunoutAt, State and the session shares are
// the active window's; the weekly window carries its own verdict in Weekly
// (see Worst and WorstWindow).
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
	// RunoutMinutesBeforeReset is by how much RunoutAt beats the reset; 0
	// when there is no run-out before the reset.
	RunoutMinutesBeforeReset float64 `json:"runout_minutes_before_reset"`

	// Account and AccountLabel say which login of the provider this is
	// when it has several (Input.Accounts): each has its own windows, burn,
	// sessions and notices. Both are empty when the provider has one login,
	// the common case. AccountLabel is what a person reads (Account.Label,
	// else the fingerprint); sessions of a login runway cannot tell are
	// listed under Account "" labelled UnknownLogin, without windows.
	Account      string `json:"account,omitempty"`
	AccountLabel string `json:"account_label,omitempty"`
}

// WindowStatus is the sample a window's figures come from, with its age,
// and that window's own burn and verdict.
type WindowStatus struct {
	Class       WindowClass `json:"class"`
	Minutes     int         `json:"minutes"`
	UsedPercent float64     `json:"used_percent"`
	ResetsAt    *time.Time  `json:"resets_at"`
	Source      Source      `json:"source"`
	ObservedAt  time.Time   `json:"observed_at"`
	// Fresh: the sample is at most Config.SampleFresh old and the burn is
	// not a velocity held after its source went quiet.
	Fresh bool `json:"fresh"`
	// Reset: the newest sample's window has reset since it was observed.
	// UsedPercent is then 0 (not the old figure), ResetsAt the past reset,
	// and the state no_data until a sample of the new window arrives.
	Reset bool `json:"reset"`
	// ResetsAtEstimated: no source said when this window resets; ResetsAt
	// is the latest it can be, inferred from the samples.
	ResetsAtEstimated bool `json:"resets_at_estimated"`
	// Burn, RunoutAt, RunoutMinutesBeforeReset and State are this window's
	// projection, the same figures ProviderStatus has for the active window.
	Burn                     Burn       `json:"burn"`
	RunoutAt                 *time.Time `json:"runout_at"`
	RunoutMinutesBeforeReset float64    `json:"runout_minutes_before_reset"`
	State                    State      `json:"state"`
}

// Burn is how fast a provider's active window is being used.
type Burn struct {
	PercentPerS         float64 `json:"percent_per_s"`
	QuotaMinutesPerHour float64 `json:"quota_minutes_per_hour"`
	Method              Method  `json:"method"`
	// Settling: the percent series just changed pace and one sample since
	// shows it, so the figure is between the old pace and the new; the
	// next sample settles it. Or the figure rests on whole-percent ticks
	// and their latest ones prove it more than 15 % off: it is catching up
	// with a change they show before they can measure it. No
	// burning-fast notice rests on it.
	Settling bool `json:"settling,omitempty"`
	// Behind: settling, and the latest whole-percent ticks rose faster than
	// the figure moves: the window may run out sooner than it shows, so
	// burn.Gate cannot say it lasts.
	Behind bool `json:"behind,omitempty"`
	// SustainableQuotaMinutesPerHour is the pace that lasts to the reset:
	// what is left over the time to the reset, in the burn's unit. A burn
	// above it runs out before the reset; 60 only while the window opens.
	SustainableQuotaMinutesPerHour float64 `json:"sustainable_quota_minutes_per_hour"`
}

// Known says the burn has a figure: without one (Method none: no sample of
// the window, or it has reset since) every figure of it and of the
// sessions' shares is unknown, which no surface shows as 0, and the JSON
// form writes null.
func (b Burn) Known() bool { return b.Method != MethodNone && b.Method != "" }

// Marker is how a surface marks the figure: "" when a fresh measurement
// backs it (measured, nowcast), "~" when it is an estimate (average,
// calibrated) or caught in a change of pace (settling).
func (b Burn) Marker() string {
	if b.Settling || b.Method == MethodAverage || b.Method == MethodCalibrated {
		return "~"
	}
	return ""
}

// Label names how the figure was obtained, for a long view: the method,
// and "settling" while a change of pace is being measured.
func (b Burn) Label() string {
	switch {
	case b.Behind:
		return string(b.Method) + ", settling, the percent rises faster"
	case b.Settling:
		return string(b.Method) + ", settling"
	}
	return string(b.Method)
}

// Unproven: the window lasts at its burn figure, but its percent rises
// faster than the figure moves (Burn.Behind), so "lasts" is the old pace's
// word: the surfaces show "?" for it, and Gate cannot tell.
func (w *WindowStatus) Unproven() bool {
	return w != nil && w.Burn.Behind && WindowVerdict(w) == Lasts
}

// SessionStatus is one agent session's share of its provider's burn.
type SessionStatus struct {
	Provider Provider `json:"provider"`
	ID       string   `json:"id"`
	Project  string   `json:"project"`
	Model    string   `json:"model"`
	// Host is the machine a remote session reported from (runway serve's
	// OpenTelemetry receiver); "" for a session in this machine's logs.
	Host                string     `json:"host"`
	TokensPerS          float64    `json:"tokens_per_s"`
	RateKind            RateKind   `json:"rate_kind"`
	QuotaMinutesPerHour float64    `json:"quota_minutes_per_hour"`
	PauseRunoutAt       *time.Time `json:"pause_runout_at"`
	LastEventAt         time.Time  `json:"last_event_at"`
	// Agents counts the session's subagents that wrote usage within the
	// presence time (75 s).
	Agents int `json:"agents"`
	// PauseGainMinutes is how much later the active window runs out if this
	// session pauses (up to the reset); 0 when it is not projected to run out
	// before the reset.
	PauseGainMinutes float64 `json:"pause_gain_minutes"`
	// PauseLastsToReset: with this session paused, the active window lasts
	// to its reset (PauseRunoutAt is then null). False when the window is
	// exhausted or has no data.
	PauseLastsToReset bool `json:"pause_lasts_to_reset"`
	// PauseWindow is the window the three Pause figures are about when it
	// is not the active one: "weekly" while the week runs out before its
	// reset and sooner than the active window; "" for the active window.
	PauseWindow WindowClass `json:"pause_window,omitempty"`

	// Account is ProviderStatus.Account of the login the session burns.
	Account string `json:"account,omitempty"`
}

// QuotaMinutesPerHour converts a burn in percent per second of a window of
// the given length: 100 % of a 5-hour window is 300 quota minutes, so 60 m/h
// is exactly the pace that lasts to the reset.
func QuotaMinutesPerHour(percentPerS float64, windowMinutes int) float64 {
	return finite(percentPerS * float64(windowMinutes) / 100 * 3600)
}
