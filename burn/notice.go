package burn

import "time"

// NoticeKind names a notification decision (docs/burn-model.md,
// "Notifications").
type NoticeKind string

const (
	NoticeBurningFast NoticeKind = "burning_fast" // run-out before the reset, within the hour
	NoticeLow         NoticeKind = "low"          // remaining at or below the low threshold
	NoticeExhausted   NoticeKind = "exhausted"    // nothing left until the reset
	NoticeReset       NoticeKind = "reset"        // a low or exhausted window has reset
)

// Notice is a decision to tell the user something. It carries everything the
// message needs, so a surface only formats it.
type Notice struct {
	Kind           NoticeKind     `json:"kind"`
	Provider       Provider       `json:"provider"`
	Window         WindowClass    `json:"window"`
	WindowMinutes  int            `json:"window_minutes"`
	UsedPercent    float64        `json:"used_percent"`
	ResetsAt       *time.Time     `json:"resets_at"`
	RunoutAt       *time.Time     `json:"runout_at"`
	Burn           Burn           `json:"burn"`
	UrgencyMinutes int            `json:"urgency_minutes,omitempty"` // the burning-fast bucket that fired
	Critical       bool           `json:"critical"`
	Top            *SessionStatus `json:"top,omitempty"` // the session burning most; nil: none
	Key            string         `json:"key"`           // names the notice within its window instance
	Account        string         `json:"account,omitempty"`
	AccountLabel   string         `json:"account_label,omitempty"`
}

// Name names the notice's provider as ProviderStatus.Name does.
func (n Notice) Name() string {
	return ProviderStatus{Provider: n.Provider, AccountLabel: n.AccountLabel}.Name()
}

// NoticeMemory is what was already sent, a plain value the caller persists
// so a restart does not notify twice.
type NoticeMemory struct {
	// Sent maps the Key of every notice sent, or covered by one sent, to when.
	Sent map[string]time.Time `json:"sent"`
	// Calm maps a window instance to when its projection turned on track.
	Calm map[string]time.Time `json:"calm,omitempty"`
}

// ForgetCovered forgets the notice of kind k that Decide marked as covered by
// key, for a surface that did not deliver key; one sent before stays.
func (m NoticeMemory) ForgetCovered(key string, k NoticeKind) {
	n, ok := parseKey(key)
	if !ok {
		return
	}
	n.kind, n.bucket = k, 0
	covered := n.String()
	at, ok := m.Sent[key]
	if was, sent := m.Sent[covered]; ok && sent && was.Equal(at) {
		delete(m.Sent, covered)
	}
}

// NoticePace lets notices go out at most one per Every, so a flapping
// estimate cannot flood the desktop; critical ones always pass and count
// for nothing. The zero value paces nothing.
type NoticePace struct {
	Every time.Duration
	last  time.Time // when the last paced notice went out
}

// Allow says whether n may go out at now, and if so counts it as out.
func (p *NoticePace) Allow(n Notice, now time.Time) bool {
	if n.Critical {
		return true
	}
	if !p.last.IsZero() && now.Sub(p.last) < p.Every {
		return false
	}
	p.last = now
	return true
}
