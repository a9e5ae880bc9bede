//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/internal/longproof"
)

// TestWindowsUnderWine runs the Windows build under Wine, as a user at a
// Windows terminal would: the demo line, the JSON snapshot, doctor and the
// statusline. Wine 8 lacks ProcessPrng, which Go's runtime needs since Go
// 1.24, so a small stand-in DLL is built with mingw-w64 (testdata/wine)
// and put in the prefix's system32. Without wine or mingw-w64 it skips, except under
// CI=true, where .ci/run installs them.
func TestWindowsUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds runway.exe and starts Wine")
	}
	longproof.Skip(t)
	wine, err := exec.LookPath("wine64")
	if err != nil {
		wine, err = exec.LookPath("wine")
	}
	if err != nil {
		// Debian's wine64 package alone puts it here, off PATH.
		wine, err = exec.LookPath("/usr/lib/wine/wine64")
	}
	cc, ccErr := exec.LookPath("x86_64-w64-mingw32-gcc")
	if err != nil || ccErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wine64 and gcc-mingw-w64-x86-64 are not installed (.ci/run installs them)")
		}
		t.Skip("needs wine64 and gcc-mingw-w64-x86-64")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "runway.exe")
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	shim := exec.Command(cc, "-shared", "-O2", "-o", filepath.Join(dir, "bcryptprimitives.dll"),
		filepath.Join("testdata", "wine", "bcryptprimitives.c"), filepath.Join("testdata", "wine", "bcryptprimitives.def"), "-ladvapi32")
	if out, err := shim.CombinedOutput(); err != nil {
		t.Fatalf("building the ProcessPrng stand-in: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	home := filepath.Join(dir, "home")
	for _, d := range []string{prefix, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// runway.exe: run it under Wine with the stand-in DLL preferred, in a
	// prefix of its own, with none of the developer's agents visible.
	runway := func(stdin string, args ...string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, wine, append([]string{exe}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + home, "WINEPREFIX=" + prefix, "WINEDEBUG=-all",
			"WINEDLLOVERRIDES=bcryptprimitives=n,b;mscoree,mshtml=", "DISPLAY=",
			"RUNWAY_CLAUDE_CACHE_DIR=" + filepath.Join(dir, "cache"),
		}
		cmd.Stdin = strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("wine %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		if strings.Contains(stderr.String(), "fatal error") || strings.Contains(stderr.String(), "panic:") {
			t.Fatalf("runway.exe %s died:\n%s", strings.Join(args, " "), stderr.String())
		}
		return string(out), code
	}

	// A fresh prefix, then the stand-in where Go's runtime looks for it:
	// it loads bcryptprimitives.dll from system32 only.
	boot := exec.Command(wine, "wineboot", "--init")
	boot.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "WINEPREFIX=" + prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "DISPLAY="}
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot: %v\n%s", err, out)
	}
	dll, err := os.ReadFile(filepath.Join(dir, "bcryptprimitives.dll"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"), dll, 0o644); err != nil {
		t.Fatal(err)
	}

	if out, code := runway("", "version"); code != 0 || !strings.HasPrefix(out, "runway ") {
		t.Fatalf("version: exit %d, %q", code, out)
	}
	if out, code := runway("", "now", "--demo"); code != 0 || !strings.Contains(out, "claude 5h") {
		t.Errorf("now --demo: exit %d, %q", code, out)
	}
	out, code := runway("", "now", "--demo", "--json")
	var snap struct {
		Providers []struct{ Provider string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &snap) != nil || len(snap.Providers) == 0 {
		t.Errorf("now --demo --json: exit %d, %q", code, out)
	}
	// Doctor runs through (exit 1: no agents on this fresh Windows), and
	// speaks Windows: no "runway tray &".
	if out, code := runway("", "doctor"); code > 1 || !strings.Contains(out, "tray") || strings.Contains(out, "runway tray &") {
		t.Errorf("doctor: exit %d:\n%s", code, out)
	}
	line := `{"session_id":"0c0dec0d-0000-4000-8000-00000000c0de","cwd":"C:\\src\\app","model":{"id":"claude-opus-4-5","display_name":"Opus"},"rate_limits":{"five_hour":{"used_percentage":12,"resets_at":` +
		strconv.FormatInt(time.Now().Add(2*time.Hour).Unix(), 10) + `}}}`
	if out, code := runway(line, "statusline"); code != 0 || !strings.Contains(out, "12%") {
		t.Errorf("statusline: exit %d, %q", code, out)
	}
}
