//go:build linux || freebsd || openbsd || netbsd

package tray

import "fyne.io/systray"

// runSystray builds the menu, serves it until serve returns, and ends
// systray. It drives systray's start and end itself: systray exports its
// DBus objects in start, and an icon, title or tooltip set before start has
// returned can be lost (the property is read for export before the setter
// can reach it). So nothing is shown before start returns, and runway's own
// item properties replace systray's only then (see exportItem): onReady,
// which builds the menu, runs alongside start.
func runSystray(build func() *menu, serve func(*menu)) {
	built := make(chan *menu, 1)
	start, end := systray.RunWithExternalLoop(func() { built <- build() }, nil)
	start()
	m := <-built
	m.face = newFace(m.opts.AppName, m.opts.Logf)
	serve(m)
	end()
}
