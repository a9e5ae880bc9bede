//go:build !windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// launcherTree lays out node_modules as npm installs the launcher beside
// this system's package, whose binary is script; script "" leaves the
// system's package out (installed with --omit=optional).
func launcherTree(t *testing.T, script string) string {
	t.Helper()
	_, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no node: CI runs the launcher")
		}
		t.Skip("no node")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		t.Skip("no npm package for", runtime.GOARCH)
	}
	root := filepath.Join(t.TempDir(), "node_modules", "@agentrunway")
	launcher := filepath.Join(root, "runway", "bin", "runway.js")
	if err := copyFile("../../npm/runway/bin/runway.js", launcher, 0o755); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		sys := filepath.Join(root, "runway-"+runtime.GOOS+"-"+arch)
		if err := os.MkdirAll(filepath.Join(sys, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sys, "package.json"), []byte(`{"name":"@agentrunway/runway-`+runtime.GOOS+"-"+arch+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sys, "bin", "runway"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return launcher
}

// TestLauncherPassesThrough: the launcher runs the system package's binary
// with the arguments as given, and ends as it ended: its exit code, or
// killed by the same signal.
func TestLauncherPassesThrough(t *testing.T) {
	launcher := launcherTree(t, `printf '%s|' "$@"; [ "$1" = term ] && kill -TERM $$; exit 7`+"\n")
	out, err := exec.Command("node", launcher, "now", "--format", "{{.Provider}} x").Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Errorf("exit %v, want 7", err)
	}
	if string(out) != "now|--format|{{.Provider}} x|" {
		t.Errorf("the binary got %q", out)
	}
	err = exec.Command("node", launcher, "term").Run()
	if !errors.As(err, &exit) {
		t.Fatalf("killed binary: %v", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("killed binary: launcher ended with %v, want killed by SIGTERM", exit)
	}
}

// TestLauncherWithoutItsBinary: installed without the optional packages,
// the launcher says which package is missing and how to get it.
func TestLauncherWithoutItsBinary(t *testing.T) {
	launcher := launcherTree(t, "")
	out, err := exec.Command("node", launcher, "now").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit %v, want 1", err)
	}
	if !strings.Contains(string(out), "is not installed") || !strings.Contains(string(out), "--include=optional") {
		t.Errorf("launcher said %q", out)
	}
}
