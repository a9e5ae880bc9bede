//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/doctor"
	"github.com/agentrunway/runway/internal/codextest"
	"github.com/agentrunway/runway/internal/dbustest"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
)

// codexThread writes an active Codex thread whose rollout carries no
// percent (as after a turn the back end answered without rate limits): the
// tray then asks the app-server.
func (h *history) codexThread(at time.Time) {
	h.t.Helper()
	id := "01a2c0de-7e57-7a11-8c0d-e00000000017"
	day := filepath.Join(h.codex, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"))
	path := filepath.Join(day, "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	w := &synth.Codex{ThreadID: id, Cwd: "/home/dev/src/gateway", Model: "gpt-5.1-codex"}
	lines := [][]byte{w.Meta(at.Add(-time.Minute))}
	lines = append(lines, w.TurnStart(at.Add(-20*time.Second))...)
	lines = append(lines, w.TokenCount(at, synth.Usage{Input: 8000, CacheRead: 5000, Output: 900}, nil, nil), w.TaskComplete(at))
	h.appendLines(path, lines...)
}

// doctorJSON runs `runway doctor --json` as its own process on the history
// and returns its checks by name.
func doctorJSON(t *testing.T, h *history, bus string) (map[string]doctor.Check, []doctor.Section) {
	t.Helper()
	cmd := runwayCommand(t, "doctor", "--json")
	cmd.Env = h.env(bus)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	var sections []doctor.Section
	if err := json.Unmarshal(stdout.Bytes(), &sections); err != nil {
		t.Fatalf("doctor --json: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	// The keys scripts read: decoding into doctor's own types would not see them renamed.
	for _, key := range []string{`"title":`, `"checks":`, `"name":`, `"state":`, `"detail":`} {
		if !bytes.Contains(stdout.Bytes(), []byte(key)) {
			t.Errorf("doctor --json has no %s key:\n%s", key, stdout.Bytes())
		}
	}
	checks := map[string]doctor.Check{}
	for _, s := range sections {
		for _, c := range s.Checks {
			checks[c.Name] = c
		}
	}
	return checks, sections
}

func hasTitle(sections []doctor.Section, title string) bool {
	return slices.ContainsFunc(sections, func(s doctor.Section) bool { return s.Title == title })
}

// waitRow waits until a visible menu row of the item matches the pattern.
func waitRow(t *testing.T, conn *dbus.Conn, name, pattern string) {
	t.Helper()
	dbustest.Eventually(t, "a menu row "+pattern, func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		return hasRow(it, pattern), "menu:\n" + strings.Join(it.Menu.Shown(), "\n")
	})
}

// readSnapshot is the tray's latest snapshot.
func readSnapshot(t *testing.T, h *history) burn.Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.state, runway.SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	// snapshot.json holds the snapshot beside the fingerprint of the
	// settings it was made for.
	var f struct {
		Snapshot burn.Snapshot `json:"snapshot"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Snapshot
}

// TestRealCodexSurfaces: the real `codex app-server`, logged in with a
// ChatGPT account whose usage back end answers the windows, then refuses
// the login (401), then is busy (429). What `runway doctor --json` says
// alone and beside a running tray, what the tray's snapshot and its menu
// rows say.
func TestRealCodexSurfaces(t *testing.T) {
	codex := codextest.Binary(t)
	backend := codextest.NewBackend(t)
	bus := dbustest.StartBus(t)
	watcher := dbustest.StartWatcher(t, bus)
	conn := dbustest.Connect(t, bus)
	h := newHistory(t)
	h.write(filepath.Join(h.config, "runway", "config.toml"),
		fmt.Sprintf("offline = false\ncodex_path = %q\n\n[notifications]\nenabled = false\n", codex))
	codextest.LoggedIn(t, h.codex, backend)
	start := time.Now().Truncate(time.Second)
	backend.SetWindows(37, 12, start.Add(2*time.Hour), start.Add(72*time.Hour))
	h.codexThread(start)

	// Alone, with the back end answering: the figures it read, in the
	// sources and in the windows.
	checks, sections := doctorJSON(t, h, bus)
	c := checks[quota.NameCodexRPC]
	if c.State != doctor.CheckOK || c.Detail != "read 5h 37%, weekly 12%" {
		t.Errorf("doctor --json, codex-rpc: %+v\n%s", c, doctor.Render(sections))
	}
	if w := checks["codex 5h"]; w.State != doctor.CheckOK || !strings.HasPrefix(w.Detail, "37% used, from codex-rpc") {
		t.Errorf("doctor --json, codex 5h window: %+v\n%s", w, doctor.Render(sections))
	}

	// The login expired: the tray's menu row, its snapshot and doctor
	// beside it say so, with the fix.
	backend.Set(codextest.Expired)
	p := startRunway(t, h, bus)
	name := watcher.WaitRegistered(t)
	expired := "Codex login expired — run `codex login`"
	waitRow(t, conn, name, regexp.QuoteMeta("⚠ "+expired))
	if snap := readSnapshot(t, h); !slices.Contains(snap.Warnings, expired) {
		t.Errorf("snapshot warnings %q, want %q", snap.Warnings, expired)
	}
	calls := backend.Calls()
	checks, sections = doctorJSON(t, h, bus)
	c = checks[quota.NameCodexRPC]
	if c.State != doctor.CheckWarn || !strings.HasPrefix(c.Detail, "logged_out: ") || !strings.Contains(c.Detail, "HTTP 401") || c.Fix != "run `codex login`" {
		t.Errorf("doctor --json beside the tray, codex-rpc: %+v\n%s", c, doctor.Render(sections))
	}
	if !hasTitle(sections, "account sources, as the tray sees them") {
		t.Errorf("doctor --json did not show the tray's sources:\n%s", doctor.Render(sections))
	}
	if backend.Calls() != calls {
		t.Errorf("doctor asked the usage back end beside the running tray (%d requests)", backend.Calls()-calls)
	}
	p.cmd.Process.Kill()
	p.waitExit(t)

	// Busy: the cause, and when the tray asks again.
	backend.Set(codextest.Busy)
	startRunway(t, h, bus)
	for first := name; name == first; {
		name = watcher.WaitRegistered(t)
	}
	waitRow(t, conn, name, `⚠ Codex usage service busy \(429\), retrying at ([A-Z][a-z]{2} )?\d\d:\d\d`)
	checks, sections = doctorJSON(t, h, bus)
	c = checks[quota.NameCodexRPC]
	if c.State != doctor.CheckWarn || !strings.HasPrefix(c.Detail, "backoff: ") || !strings.Contains(c.Detail, "429") ||
		!regexp.MustCompile(`\(the tray asks again at ([A-Z][a-z]{2} )?\d\d:\d\d\)$`).MatchString(c.Detail) {
		t.Errorf("doctor --json beside the tray, codex-rpc: %+v\n%s", c, doctor.Render(sections))
	}
	if n := backend.BadAuth(); n != 0 {
		t.Errorf("%d usage requests without the login's token and account", n)
	}
}
