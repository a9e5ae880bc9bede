//go:build !windows

package tray

// platformIcon is the PNG itself: SNI hosts and macOS take it as it is.
func platformIcon(png []byte) []byte { return png }
