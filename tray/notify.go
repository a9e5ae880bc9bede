package tray

import (
	"math"
	"strconv"

	"github.com/agentrunway/runway/burn"
)

// Notifier delivers burn's notification decisions to the desktop.
type Notifier interface {
	Notify(n burn.Notice) error
	// Tell shows a message that answers a click (Options.Tell); it is
	// never paced.
	Tell(summary, body string) error
	Close() error
}

// windowKey names a notice's window, a login of its own apart.
func windowKey(n burn.Notice) string {
	return string(n.Provider) + "/" + n.Account + "/" + string(n.Window)
}

// noticeIconSize is the side of a notification's icon: servers show it at
// 32 to 64 px, and scaling down stays sharper than scaling up.
const noticeIconSize = 64

// noticeIcon is the icon a notice carries: the window's used percent in
// the colour of its kind (red for critical ones).
func noticeIcon(n burn.Notice) iconKey {
	k := iconKey{Tone: toneWarn, Step: stepOf(n.UsedPercent)}
	switch {
	case n.Kind == burn.NoticeReset:
		k.Tone = toneOK
	case n.Critical || n.Kind == burn.NoticeLow || n.Kind == burn.NoticeExhausted:
		k.Tone = toneAlert
	}
	k.Text = strconv.Itoa(min(int(math.Round(max(n.UsedPercent, 0))), 100)) + "%"
	if n.Kind == burn.NoticeReset {
		k.Text, k.Step = "0%", 0
	}
	return k
}
