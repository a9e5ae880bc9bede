package doctor

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/tail"
)

// offlineEnv is an Env in a temporary folder that calls no endpoint.
func offlineEnv(t *testing.T) runway.Env {
	t.Helper()
	dir := t.TempDir()
	cfg := runway.DefaultConfig()
	cfg.Offline = true
	return runway.Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{filepath.Join(dir, "claude")}, Codex: []string{filepath.Join(dir, "codex")}},
		StateDir:       filepath.Join(dir, "state"),
		Home:           dir,
		ClaudeCacheDir: filepath.Join(dir, "cache"),
	}
}

// TestDoctorNoListener: where the config names a listener and nothing
// listens there, doctor says so with how to start one; without a setting
// that is only information.
func TestDoctorNoListener(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	env := offlineEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port nothing listens on
	env.Config.Serve.Listen = addr
	s := remoteSection(t.Context(), env, now)
	if c := s.Checks[0]; c.State != CheckWarn || c.Detail != "nothing listens on "+addr || !strings.Contains(c.Fix, "runway serve") {
		t.Errorf("configured, not running: %+v", c)
	}
	if c := s.Checks[1]; c.State != CheckInfo || c.Detail != "none" {
		t.Errorf("no remote sessions: %+v", c)
	}
	// Beyond this machine: not called, said so.
	env.Config.Serve.Listen = "192.0.2.1:4318"
	if c := remoteSection(t.Context(), env, now).Checks[0]; c.State != CheckInfo || !strings.Contains(c.Detail, "not probed") {
		t.Errorf("remote listener: %+v", c)
	}
}
