// Package tray is runway's desktop surface: the tray icon and its menu, the
// notifications before a window runs dry, and autostart at login. It renders
// what burn decides. On Linux it speaks DBus itself (no cgo, no GTK); macOS
// needs cgo for the tray.
package tray

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/agentrunway/runway/burn"
)

// ErrNoTrayHost means there is nowhere to show an icon (no session bus, or
// no StatusNotifierWatcher on it): the caller runs notifier-only.
var ErrNoTrayHost = errors.New("no tray host (no session bus or no StatusNotifierWatcher)")

// Session list display modes.
const (
	SessionsAuto   = "auto"   // sessions that burn or wait; idle ones hidden
	SessionsAlways = "always" // every session of the window, idle ones too
	SessionsNever  = "never"  // provider figures only
)

// Options configure Run; callbacks may be nil. StatusLine and Doctor run on
// a goroutine of their own, the On… callbacks on the tray's: they must
// return quickly.
type Options struct {
	StatusLine func() string // the `runway now` line "Copy status line" copies
	Doctor     func() string // the `runway doctor` report "Open doctor…" shows
	// Tell shows a message as a desktop notification (the doctor's report, a
	// line that could not be copied); nil without notifications.
	Tell                  func(summary, body string) error
	OnNotificationsToggle func(on bool)

	Notifications   bool   // initial state of the "Notifications" checkbox
	SessionListMode string // initial mode; SessionsAuto when empty or unknown
	// Choices keeps each click on Notifications or a session list mode for
	// the next start; nil keeps them for this run only.
	Choices        *Choices
	MaxSessionRows int // session rows per provider before "+N sessions"; 5 when ≤ 0

	// Notices are those delivered to the desktop: while a critical one
	// holds, the icon is red.
	Notices <-chan burn.Notice

	Location *time.Location // times are shown in it; time.Local when nil
	// Logf reports what goes wrong behind a click, without a prefix of its
	// own; log.Printf when nil.
	Logf func(format string, args ...any)
}

// appName names runway to the desktop: the item, the notifications, Quit.
const appName = "runway"

// maxProviders is how many provider groups the menu preallocates.
const maxProviders = 4

func (o Options) withDefaults() Options {
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

// Desktop is what the desktop offers runway, for `runway doctor`. A nil
// error means found.
type Desktop struct {
	// TrayHost: a tray that shows runway's icon (on Linux, a session bus
	// with a StatusNotifierWatcher).
	TrayHost error
	// Notifications: somewhere to deliver notifications, and its name
	// ("dunst 1.9.0") where the desktop says.
	Notifications error
	NotifyServer  string
}

// Probe looks for a tray host and a notification server without showing
// anything.
func Probe(ctx context.Context) Desktop {
	d := Desktop{TrayHost: checkTrayHost(ctx)}
	d.NotifyServer, d.Notifications = askNotificationServer(ctx)
	return d
}
