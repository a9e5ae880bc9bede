//go:build linux

package tray

import "testing"

func TestMenuLabel(t *testing.T) {
	if got := menuLabel("  my_app 30 m/h"); got != "  my__app 30 m/h" {
		t.Errorf("got %q", got)
	}
}
