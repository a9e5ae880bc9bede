//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"context"
	"fmt"
	"time"
)

// askNotificationServer asks org.freedesktop.Notifications who it is.
func askNotificationServer(ctx context.Context) (string, error) {
	conn, err := sessionBus()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var name, vendor, version, spec string
	err = conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications").
		CallWithContext(ctx, "org.freedesktop.Notifications.GetServerInformation", 0).
		Store(&name, &vendor, &version, &spec)
	if err != nil {
		return "", fmt.Errorf("no notification server on the session bus: %v", err)
	}
	return name + " " + version, nil
}
