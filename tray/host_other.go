//go:build windows || (darwin && cgo)

package tray

import "context"

// checkTrayHost has nothing to check: Windows and macOS always have a tray.
func checkTrayHost(context.Context) error { return nil }
