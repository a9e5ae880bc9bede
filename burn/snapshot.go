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
	// Unread names what runway needed and could not read: Gate cannot say
	// "on track".
	Unread []string `json:"unread,omitempty"`
}

// ProviderStatus is one provider's account: its active window (the 5-hour
// one when it has it, else the weekly one), whose figures Burn, RunoutAt and
// State are, and the weekly window with its own.
type ProviderStatus struct {
	Provider Provider      `json:"provider"`
	Window   *WindowStatus `json:"window"`
	Weekly   *WindowStatus `json:"weekly"`
	Burn     Burn          `json:"burn"`
	RunoutAt *time.Time    `json:"runout_at"`
	State    State         `json:"state"`
	// ElsewhereQuotaMinutesPerHour is the burn no local session explains.
	ElsewhereQuotaMinutesPerHour float64 `json:"elsewhere_quota_minutes_per_hour"`
	// RunoutMinutesBeforeReset is by how much RunoutAt beats the reset.
	RunoutMinutesBeforeReset float64 `json:"runout_minutes_before_reset"`

	// Account and AccountLabel name the login when the provider has several
	// (docs/burn-model.md, "Several logins"); empty with one.
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
	// Fresh: the sample is at most Config.SampleFresh old and the burn not held.
	Fresh bool `json:"fresh"`
	// Reset: the window has reset since its newest sample: UsedPercent 0,
	// ResetsAt the past reset, state no_data.
	Reset bool `json:"reset"`
	// ResetsAtEstimated: no source said when this window resets; ResetsAt
	// is the latest it can be.
	ResetsAtEstimated        bool       `json:"resets_at_estimated"`
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
	// Settling: the figure is caught in a change of pace (docs/burn-model.md,
	// "Changes of pace"); no burning-fast notice rests on it.
	Settling bool `json:"settling,omitempty"`
	// Behind: settling, and the percent rises faster than the figure moves:
	// Gate cannot say it lasts.
	Behind bool `json:"behind,omitempty"`
	// SustainableQuotaMinutesPerHour is the pace that lasts to the reset.
	SustainableQuotaMinutesPerHour float64 `json:"sustainable_quota_minutes_per_hour"`
}

// Known says the burn has a figure; without one its figures and the
// sessions' shares are unknown, never 0 (JSON null).
func (b Burn) Known() bool { return b.Method != MethodNone && b.Method != "" }

// Marker is how a surface marks the figure: "~" for an estimate (average,
// calibrated) or a settling one, else "".
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

// Unproven: the window lasts at its burn figure, but it is Behind: the
// surfaces show "?" and Gate cannot tell.
func (w *WindowStatus) Unproven() bool {
	return w != nil && w.Burn.Behind && windowVerdict(w) == Lasts
}

// SessionStatus is one agent session's share of its provider's burn.
type SessionStatus struct {
	Provider            Provider   `json:"provider"`
	ID                  string     `json:"id"`
	Project             string     `json:"project"`
	Model               string     `json:"model"`
	Host                string     `json:"host"` // as Event.Host
	TokensPerS          float64    `json:"tokens_per_s"`
	RateKind            RateKind   `json:"rate_kind"`
	QuotaMinutesPerHour float64    `json:"quota_minutes_per_hour"`
	PauseRunoutAt       *time.Time `json:"pause_runout_at"`
	LastEventAt         time.Time  `json:"last_event_at"`
	Agents              int        `json:"agents"` // subagents that wrote usage within Config.Presence
	// PauseGainMinutes is how much later the window runs out if this
	// session pauses (up to the reset).
	PauseGainMinutes float64 `json:"pause_gain_minutes"`
	// PauseLastsToReset: with this session paused, the window lasts to its
	// reset; false when it is exhausted or has no data.
	PauseLastsToReset bool `json:"pause_lasts_to_reset"`
	// PauseWindow is "weekly" when the Pause figures are about the weekly
	// window (pausingFor); "" for the active one.
	PauseWindow WindowClass `json:"pause_window,omitempty"`
	Account     string      `json:"account,omitempty"` // ProviderStatus.Account
}

// quotaMinutesPerHour converts a burn in percent per second of a window of
// the given length: 60 m/h lasts a whole window.
func quotaMinutesPerHour(percentPerS float64, windowMinutes int) float64 {
	return finite(percentPerS * float64(windowMinutes) / 100 * 3600)
}
