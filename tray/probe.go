package tray

import "context"

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
