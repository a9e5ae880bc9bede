//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"context"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

const watcherName = "org.kde.StatusNotifierWatcher"

// checkTrayHost looks for a session bus and a StatusNotifierWatcher on it.
// systray assumes both, and without them it waits forever.
func checkTrayHost(ctx context.Context) error {
	conn, err := sessionBus()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoTrayHost, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&has)
	if err != nil {
		return fmt.Errorf("%w: asking the session bus for %s: %v", ErrNoTrayHost, watcherName, err)
	}
	if !has {
		return fmt.Errorf("%w: nothing owns %s on the session bus", ErrNoTrayHost, watcherName)
	}
	return nil
}

// sessionBus connects privately to the session bus without ever launching
// one: a bus started for runway alone would have no tray and no notification
// daemon on it. It honours DBUS_SESSION_BUS_ADDRESS, then $XDG_RUNTIME_DIR/bus.
func sessionBus() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, fmt.Errorf("no session bus: %w", err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("session bus: authenticating: %w", err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("session bus: hello: %w", err)
	}
	return conn, nil
}
