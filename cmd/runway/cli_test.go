package main

import "testing"

// TestHasDesktop: a display says a desktop on Linux; a session bus alone
// does not (an SSH login on a systemd system has one); macOS and Windows
// always have one.
func TestHasDesktop(t *testing.T) {
	for _, c := range []struct {
		goos string
		env  map[string]string
		want bool
	}{
		{"linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"linux", map[string]string{"XDG_SESSION_TYPE": "wayland"}, true},
		{"linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus", "XDG_SESSION_TYPE": "tty"}, false},
		{"linux", nil, false},
		{"freebsd", nil, false},
		{"darwin", nil, true},
		{"windows", nil, true},
	} {
		if got := hasDesktop(c.goos, func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%s %v: hasDesktop %v, want %v", c.goos, c.env, got, c.want)
		}
	}
}
