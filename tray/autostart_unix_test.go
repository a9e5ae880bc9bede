//go:build linux

package tray

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutostartLinux switches between the XDG entry and the systemd unit and
// off again, in a temporary config folder.
func TestAutostartLinux(t *testing.T) {
	dir := t.TempDir()
	opts := AutostartOptions{Exec: "/usr/local/bin/runway", Dir: dir}
	desktop := filepath.Join(dir, "autostart", "runway.desktop")
	unit := filepath.Join(dir, "systemd", "user", "runway.service")
	wants := filepath.Join(dir, "systemd", "user", "graphical-session.target.wants", "runway.service")

	step := func(action string, systemd bool, wantMsg string) {
		t.Helper()
		opts.Systemd = systemd
		msg, err := Autostart(action, opts)
		if err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		if !strings.HasPrefix(msg, wantMsg) {
			t.Errorf("%s says %q, want it to start with %q", action, msg, wantMsg)
		}
	}
	exists := func(path string) bool {
		_, err := os.Lstat(path)
		return err == nil
	}

	step("status", false, "autostart off")
	step("off", false, "autostart was already off")

	step("on", false, "autostart on: "+desktop)
	b, err := os.ReadFile(desktop)
	if err != nil || !strings.Contains(string(b), "Exec=/usr/local/bin/runway tray\n") {
		t.Fatalf("desktop entry %q, %v", b, err)
	}
	if fi, _ := os.Stat(desktop); fi.Mode().Perm() != 0o600 {
		t.Errorf("desktop entry mode %v", fi.Mode())
	}
	step("status", false, "autostart on: "+desktop)

	step("on", true, "autostart on: "+unit)
	if exists(desktop) {
		t.Error("the XDG entry stayed beside the systemd unit: the tray would start twice")
	}
	if target, err := os.Readlink(wants); err != nil || target != unit {
		t.Errorf("enablement link → %q, %v", target, err)
	}
	step("on", true, "autostart on: "+unit) // again: replaces, does not fail
	step("status", false, "autostart on: "+unit+" (systemd, enabled)")

	step("off", false, "autostart off")
	for _, p := range []string{desktop, unit, wants} {
		if exists(p) {
			t.Errorf("%s left behind", p)
		}
	}
	step("status", false, "autostart off")
}

func TestAutostartRefusesTemporaryBuild(t *testing.T) {
	// The test binary itself lives in a go-build folder, like `go run`'s.
	exe, _ := os.Executable()
	if !strings.Contains(exe, "go-build") {
		t.Skip("test binary not in a go-build folder: ", exe)
	}
	if _, err := Autostart("on", AutostartOptions{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "go install") {
		t.Errorf("autostart on from a temporary build: %v", err)
	}
}

func TestAutostartServe(t *testing.T) {
	dir := t.TempDir()
	unit := filepath.Join(dir, "systemd", "user", "runway.service")
	graphical := filepath.Join(dir, "systemd", "user", "graphical-session.target.wants", "runway.service")
	byDefault := filepath.Join(dir, "systemd", "user", "default.target.wants", "runway.service")
	if _, err := Autostart("on", AutostartOptions{Exec: "/usr/local/bin/runway", Dir: dir, Systemd: true}); err != nil {
		t.Fatal(err)
	}
	msg, err := Autostart("on", AutostartOptions{Exec: "/usr/local/bin/runway", Dir: dir, Serve: true})
	if err != nil || !strings.Contains(msg, "enable-linger") {
		t.Fatalf("%q %v", msg, err)
	}
	b, _ := os.ReadFile(unit)
	if !strings.Contains(string(b), "ExecStart=/usr/local/bin/runway serve\n") || !strings.Contains(string(b), "WantedBy=default.target\n") ||
		strings.Contains(string(b), "graphical-session") {
		t.Errorf("unit:\n%s", b)
	}
	if target, err := os.Readlink(byDefault); err != nil || target != unit {
		t.Errorf("default.target link → %q, %v", target, err)
	}
	if _, err := os.Lstat(graphical); err == nil {
		t.Error("the tray's link stayed: runway would start twice")
	}
	if msg, _ := Autostart("status", AutostartOptions{Dir: dir}); !strings.Contains(msg, "runway serve, enabled") {
		t.Errorf("status %q", msg)
	}
	Autostart("off", AutostartOptions{Dir: dir})
	for _, p := range []string{unit, byDefault} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}
