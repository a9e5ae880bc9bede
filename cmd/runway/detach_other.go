//go:build !windows

package main

// detachTray has nothing to do outside Windows: a terminal's `&` or the
// login item starts the tray without a window there.
func (c *cli) detachTray(foreground bool) (started bool, err error) { return false, nil }
