//go:build !windows

package tray

// platformIcon is the largest PNG: macOS scales it to the menu bar. (Linux
// hosts get every size through the item's own IconPixmap, see item_unix.go.)
func platformIcon(k iconKey) []byte { return iconPNG(k) }
