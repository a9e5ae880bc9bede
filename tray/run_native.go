//go:build windows || (darwin && cgo)

package tray

import (
	"runtime"

	"fyne.io/systray"
)

// runSystray builds the menu once the native tray is ready, serves it until
// serve returns, and ends systray. The event loop runs on this goroutine,
// which must stay on one thread: the one that made the tray's window.
func runSystray(build func() *menu, serve func(*menu)) {
	runtime.LockOSThread()
	done := make(chan struct{})
	systray.Run(func() {
		m := build()
		m.face = newFace(m.opts.AppName, m.opts.Logf)
		go func() {
			defer close(done)
			serve(m)
			systray.Quit()
		}()
	}, nil)
	<-done
}
