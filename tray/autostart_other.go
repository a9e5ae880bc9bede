//go:build !(linux || freebsd || openbsd || netbsd || darwin || windows)

package tray

import "errors"

func autostart(string, AutostartOptions) (string, error) {
	return "", errors.New("autostart: not supported on this system")
}
