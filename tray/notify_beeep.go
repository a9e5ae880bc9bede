//go:build darwin || windows

package tray

import (
	"context"
	"runtime"
	"time"

	"github.com/gen2brain/beeep"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

// NewNotifier uses the platform's own notifications (Notification Center,
// Windows toasts) through beeep.
func NewNotifier() (Notifier, error) {
	beeep.AppName = appName
	return beeepNotifier{}, nil
}

type beeepNotifier struct{}

func (beeepNotifier) Notify(n burn.Notice) error {
	summary, body := text.Notice(n, time.Now(), time.Local)
	icon := encodePNG(noticeIcon(n).draw(noticeIconSize))
	if n.Critical {
		return beeep.Alert(summary, body, icon)
	}
	return beeep.Notify(summary, body, icon)
}

func (beeepNotifier) Tell(summary, body string) error {
	return beeep.Notify(summary, body, iconPNG(iconKey{Tone: toneNone}))
}

func (beeepNotifier) Close() error { return nil }

// askNotificationServer: macOS and Windows always have their own.
func askNotificationServer(context.Context) (string, error) {
	return runtime.GOOS + " notifications", nil
}
