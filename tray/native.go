//go:build windows || (darwin && cgo)

package tray

import (
	"context"
	"runtime"

	"fyne.io/systray"
)

// checkTrayHost has nothing to check: Windows and macOS always have a tray.
func checkTrayHost(context.Context) error { return nil }

// runSystray builds the menu once the native tray is ready, serves it until
// serve returns, and ends systray. The event loop must stay on the thread
// that made the tray's window.
func runSystray(build func() *menu, serve func(*menu)) {
	runtime.LockOSThread()
	done := make(chan struct{})
	systray.Run(func() {
		m := build()
		go func() {
			defer close(done)
			serve(m)
			systray.Quit()
		}()
	}, nil)
	<-done
}

// face is what the tray shows outside its menu, through systray: the icon,
// the tooltip, and on macOS the label beside the icon. Windows has no place
// for a label or a title.
type face struct{}

// setIcon hands Windows an ICO with every size (it loads nothing else and
// picks one by the screen's scaling), macOS the largest PNG to scale.
func (face) setIcon(k iconKey) {
	if runtime.GOOS == "windows" {
		systray.SetIcon(wrapICO(iconPNGs(k)...))
	} else {
		systray.SetIcon(iconPNG(k))
	}
}
func (face) setTitle(string) {}

// setTooltip cuts the tooltip to the 127 UTF-16 units the Windows tray keeps.
func (face) setTooltip(s string) {
	if runtime.GOOS == "windows" {
		s = shortTip(s, 127)
	}
	systray.SetTooltip(s)
}
func (face) setLabel(label string) {
	if runtime.GOOS == "darwin" {
		systray.SetTitle(label)
	}
}
