package tray

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChoicesOverConfig: a menu choice wins over config.toml at the next
// start, unless config.toml was modified after it (the user's edit wins);
// a damaged file says so and leaves the config's settings.
func TestChoicesOverConfig(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.toml")
	clicked := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

	c, err := LoadChoices(dir, config)
	if err != nil {
		t.Fatal(err)
	}
	if on, mode := c.Over(true, SessionsAuto); !on || mode != SessionsAuto {
		t.Errorf("nothing chosen yet: %v %q, want the config's", on, mode)
	}
	off := false
	if err := c.pick(&off, "", clicked); err != nil {
		t.Fatal(err)
	}
	if err := c.pick(nil, SessionsNever, clicked.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		edited     time.Time // config.toml's modification; zero: no file
		on         bool
		mode       string
		whoseSetBy string
	}{
		{time.Time{}, false, SessionsNever, "both choices (no config file)"},
		{clicked.Add(-time.Minute), false, SessionsNever, "both choices"},
		{clicked.Add(time.Minute), true, SessionsNever, "the config's notifications, the later session list choice"},
		{clicked.Add(2 * time.Hour), true, SessionsAuto, "the config, edited after both"},
	} {
		if !tc.edited.IsZero() {
			if err := os.WriteFile(config, []byte("[tray]\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(config, tc.edited, tc.edited); err != nil {
				t.Fatal(err)
			}
		}
		again, err := LoadChoices(dir, config)
		if err != nil {
			t.Fatal(err)
		}
		if on, mode := again.Over(true, SessionsAuto); on != tc.on || mode != tc.mode {
			t.Errorf("%s: notifications %v, session list %q; want %v %q", tc.whoseSetBy, on, mode, tc.on, tc.mode)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, choicesName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	damaged, err := LoadChoices(dir, config)
	if err == nil || !strings.Contains(err.Error(), choicesName) {
		t.Errorf("a damaged file: %v, want an error naming it", err)
	}
	if on, mode := damaged.Over(true, SessionsAlways); !on || mode != SessionsAlways {
		t.Errorf("a damaged file gives %v %q, want the config's", on, mode)
	}
}
