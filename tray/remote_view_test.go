package tray

import (
	"testing"
	"time"
)

// TestRenderRemoteSession: a session that reported over OpenTelemetry
// from another machine reads "NAME on HOST" in the menu, with its own m/h
// and what pausing it buys, ranked among the local ones.
func TestRenderRemoteSession(t *testing.T) {
	s := loadSnapshot(t, "runout")
	s.Sessions[1].Host = "devbox" // the api session runs on a dev server
	v := render(s, time.UTC, SessionsAuto, 5, false)
	c := v.Groups[0]
	want := []string{
		"    my-app 30m/h · 2 subagents · pause → lasts",
		"    api on devbox 8.0m/h · pause → +15m",
		"    docs · waiting",
	}
	if len(c.Sessions) != len(want) {
		t.Fatalf("session rows %q, want %q", c.Sessions, want)
	}
	for i := range want {
		if c.Sessions[i] != want[i] {
			t.Errorf("row %d %q, want %q", i, c.Sessions[i], want[i])
		}
	}
	if c.Elsewhere != "" {
		t.Errorf("elsewhere row %q: the remote session explains that burn", c.Elsewhere)
	}
}
