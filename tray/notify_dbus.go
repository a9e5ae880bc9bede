//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

const (
	notificationsName = "org.freedesktop.Notifications"
	notificationsPath = "/org/freedesktop/Notifications"
)

// NewNotifier connects to org.freedesktop.Notifications on the session bus.
// Each notice replaces the previous one about the same window (replaces_id)
// instead of stacking; exhausted ones are critical.
func NewNotifier() (Notifier, error) {
	conn, err := sessionBus()
	if err != nil {
		return nil, err
	}
	return newDBusNotifier(conn, time.Local, time.Now), nil
}

func newDBusNotifier(conn *dbus.Conn, loc *time.Location, now func() time.Time) *dbusNotifier {
	return &dbusNotifier{conn: conn, loc: loc, now: now, ids: map[string]uint32{}}
}

type dbusNotifier struct {
	conn *dbus.Conn
	loc  *time.Location
	now  func() time.Time // countdowns run from it

	mu  sync.Mutex
	ids map[string]uint32 // the server's id of the last notification per window
}

// imageData is the notification spec's raw image hint, (iiibiiay).
type imageData struct {
	Width, Height, Rowstride int32
	HasAlpha                 bool
	BitsPerSample, Channels  int32
	Data                     []byte
}

func (d *dbusNotifier) Notify(n burn.Notice) error {
	summary, body := text.Notice(n, d.now(), d.loc)
	urgency, icon := byte(1), "dialog-warning"
	switch {
	case n.Critical || n.Kind == burn.NoticeExhausted:
		urgency, icon = 2, "dialog-error"
	case n.Kind == burn.NoticeReset:
		urgency, icon = 0, "dialog-information"
	}
	img := noticeIcon(n).draw(noticeIconSize)
	hints := map[string]dbus.Variant{
		"urgency": dbus.MakeVariant(urgency),
		"image-data": dbus.MakeVariant(imageData{
			Width: int32(img.Rect.Dx()), Height: int32(img.Rect.Dy()), Rowstride: int32(img.Stride),
			HasAlpha: true, BitsPerSample: 8, Channels: 4, Data: img.Pix,
		}),
	}
	return d.send(windowKey(n), icon, summary, body, hints)
}

// Tell shows a message at normal urgency, replacing the previous one so a
// second click does not stack them.
func (d *dbusNotifier) Tell(summary, body string) error {
	return d.send("tell", "dialog-information", summary, body, map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))})
}

// send shows a notification in place of the last one under key.
func (d *dbusNotifier) send(key, icon, summary, body string, hints map[string]dbus.Variant) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var id uint32
	err := d.conn.Object(notificationsName, notificationsPath).
		CallWithContext(ctx, notificationsName+".Notify", 0,
			appName, d.ids[key], icon, summary, body, []string{}, hints, int32(-1)).
		Store(&id)
	if err != nil {
		return fmt.Errorf("notify %s: %w", key, err)
	}
	d.ids[key] = id
	return nil
}

func (d *dbusNotifier) Close() error { return d.conn.Close() }
