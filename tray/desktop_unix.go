//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

const watcherName = "org.kde.StatusNotifierWatcher"

// checkTrayHost looks for a session bus and a StatusNotifierWatcher on it:
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
	err = conn.Object(notificationsName, notificationsPath).
		CallWithContext(ctx, notificationsName+".GetServerInformation", 0).
		Store(&name, &vendor, &version, &spec)
	if err != nil {
		return "", fmt.Errorf("no notification server on the session bus: %v", err)
	}
	return name + " " + version, nil
}

// runSystray builds the menu, serves it until serve returns, and ends
// systray. It drives systray's start itself: an icon or tooltip set before
// start has exported the item can be lost, so runway's own item properties
// replace systray's only once start returns (see exportItem).
func runSystray(build func() *menu, serve func(*menu)) {
	built := make(chan *menu, 1)
	start, end := systray.RunWithExternalLoop(func() { built <- build() }, nil)
	start()
	m := <-built
	m.face = newFace(m.opts.Logf)
	serve(m)
	end()
}

// copyText uses whichever clipboard tool the session has: wl-copy on
// Wayland, xclip or xsel on X11.
func copyText(text string) error {
	var tools [][]string
	if os.Getenv("WAYLAND_DISPLAY") != "" {
		tools = append(tools, []string{"wl-copy"})
	}
	tools = append(tools, []string{"xclip", "-selection", "clipboard"}, []string{"xsel", "--clipboard", "--input"})
	for _, t := range tools {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		cmd := exec.Command(t[0], t[1:]...)
		cmd.Stdin = strings.NewReader(text)
		return cmd.Run()
	}
	return errors.New("no clipboard tool (install wl-clipboard, xclip or xsel)")
}

// menuLabel escapes a label for dbusmenu, where "_" marks an access key: a
// project named my_app would otherwise show as "myapp".
func menuLabel(s string) string { return strings.ReplaceAll(s, "_", "__") }
