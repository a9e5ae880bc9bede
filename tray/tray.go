// Package tray is runway's desktop surface: the tray icon and its menu, the
// desktop notifications before a window runs dry, and autostart at login.
//
// It renders what package burn computes and decides; it computes nothing
// itself. On Linux it speaks DBus directly (StatusNotifierItem through
// fyne.io/systray, org.freedesktop.Notifications through godbus), so it needs
// neither cgo nor GTK; macOS needs cgo for the tray and is built on a Mac.
package tray

import (
	"errors"
	"log"
	"time"

	"github.com/agentrunway/runway/burn"
)

// ErrNoTrayHost means there is nowhere to show an icon: no session bus, or no
// StatusNotifierWatcher on it. The caller runs notifier-only and says so once.
var ErrNoTrayHost = errors.New("no tray host (no session bus or no StatusNotifierWatcher)")

// Session list display modes.
const (
	SessionsAuto   = "auto"   // sessions that burn or wait; idle ones hidden
	SessionsAlways = "always" // every session of the window, idle ones too
	SessionsNever  = "never"  // provider figures only
)

// Options configure Run. Callbacks may be nil. StatusLine and Doctor run on
// a goroutine of their own; the On… callbacks run on the tray's and must
// return quickly.
type Options struct {
	AppName string // "runway" when empty

	// StatusLine returns the `runway now` line that "Copy status line" copies.
	StatusLine func() string
	// Doctor returns the `runway doctor` report that "Open doctor…" shows.
	Doctor func() string
	// Tell shows a message as a desktop notification: the doctor's report,
	// or a status line that could not be copied. nil without notifications;
	// the menu then says where to look.
	Tell func(summary, body string) error
	// OnNotificationsToggle is called when the user flips "Notifications".
	OnNotificationsToggle func(on bool)
	// OnSessionListMode is called with SessionsAuto, SessionsAlways or
	// SessionsNever when the user picks one.
	OnSessionListMode func(mode string)

	Notifications   bool   // initial state of the "Notifications" checkbox
	SessionListMode string // initial mode; SessionsAuto when empty or unknown
	MaxSessionRows  int    // session rows per provider before "+N sessions"; 5 when ≤ 0

	// Notices are the notices delivered to the desktop: while a critical
	// one is out (its window still heads for the run-out) the icon is red.
	// nil when there are no notifications.
	Notices <-chan burn.Notice

	// Location is the zone times are shown in; time.Local when nil.
	Location *time.Location
	// Logf reports what goes wrong behind a click (no clipboard tool, no
	// notifications), without a prefix of its own; log.Printf when nil.
	Logf func(format string, args ...any)
}

// maxProviders is how many provider groups the menu preallocates.
const maxProviders = 4

func (o Options) withDefaults() Options {
	if o.AppName == "" {
		o.AppName = "runway"
	}
	switch o.SessionListMode {
	case SessionsAuto, SessionsAlways, SessionsNever:
	default:
		o.SessionListMode = SessionsAuto
	}
	if o.MaxSessionRows <= 0 {
		o.MaxSessionRows = 5
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	return o
}
