//go:build windows || (darwin && cgo)

package tray

import (
	"runtime"

	"fyne.io/systray"
)

// face is what the tray shows outside its menu, through systray: the icon
// (the figure drawn in), the tooltip, and on macOS the label beside the
// icon in the menu bar. Windows has no place for a label or a title.
type face struct{}

func newFace(string, func(string, ...any)) face { return face{} }

func (face) setIcon(k iconKey)   { systray.SetIcon(platformIcon(k)) }
func (face) setTitle(string)     {}
func (face) setTooltip(s string) { systray.SetTooltip(s) }
func (face) setLabel(label string) {
	if runtime.GOOS == "darwin" {
		systray.SetTitle(label)
	}
}
