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
	Kind          NoticeKind  `json:"kind"`
	Provider      Provider    `json:"provider"`
	Window        WindowClass `json:"window"`
	WindowMinutes int         `json:"window_minutes"`
	UsedPercent   float64     `json:"used_percent"`
	ResetsAt      *time.Time  `json:"resets_at"`
	RunoutAt      *time.Time  `json:"runout_at"`
	// Burn is the window's burn, with the pace that lasts to its reset.
	Burn Burn `json:"burn"`
	// UrgencyMinutes is the burning-fast bucket (60, 30 or 10) that fired.
	UrgencyMinutes int  `json:"urgency_minutes,omitempty"`
	Critical       bool `json:"critical"`
	// Top is the session burning most, with its pause impact; nil when no
	// local session burns.
	Top *SessionStatus `json:"top,omitempty"`
	// Key identifies the notice within its window instance; a NoticeMemory
	// holding it means it was sent.
	Key string `json:"key"`
	// Account and AccountLabel are the login's, when the provider has
	// several (ProviderStatus.Account).
	Account      string `json:"account,omitempty"`
	AccountLabel string `json:"account_label,omitempty"`
}

// Name names the notice's provider as ProviderStatus.Name does.
func (n Notice) Name() string {
	return ProviderStatus{Provider: n.Provider, AccountLabel: n.AccountLabel}.Name()
}

// NoticeMemory is what was already sent, a plain value the caller persists
// so a restart does not notify twice.
type NoticeMemory struct {
	// Sent maps the Key of every notice sent, or covered by a more urgent
	// one sent at the same time, to when.
	Sent map[string]time.Time `json:"sent"`
	// Calm maps a window instance to when its projection was last seen
	// turning on track; burning-fast buckets re-arm after Config.Rearm of calm.
	Calm map[string]time.Time `json:"calm,omitempty"`
}

// ForgetCovered forgets the notice of kind k in the same window instance as
// the notice key when it was marked as sent with it: Decide marks the
// notices a more urgent one covers as sent at the same time, and a surface
// that does not deliver that one (the user turned its kind off) lets the
// covered one come on its own. One sent before was really sent: it stays.
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
