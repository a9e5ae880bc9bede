package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
)

// notice is a burning-fast notice whose top session is remote.
func notice() burn.Notice {
	runout := time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)
	reset := runout.Add(25 * time.Minute)
	return burn.Notice{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
		UsedPercent: 80, ResetsAt: &reset, RunoutAt: &runout, Critical: true,
		Top: &burn.SessionStatus{Provider: burn.Claude, ID: "6f1c2b9e-0d1a", Project: "/srv/shop", Host: "devbox",
			QuotaMinutesPerHour: 65, PauseLastsToReset: true}}
}

func TestServeNoticesAreALineOnStderr(t *testing.T) {
	var stderr bytes.Buffer
	c := &cli{ctx: context.Background(), stderr: &stderr}
	env := runway.Env{Config: runway.DefaultConfig()}
	if err := c.noticeSink(env)(notice()); err != nil {
		t.Fatal(err)
	}
	got := stderr.String()
	if !strings.HasPrefix(got, "runway: notice: Claude 5h runs out ") || !strings.Contains(got, "shop on devbox burns 65m/h; pausing it lasts to the reset.") {
		t.Errorf("%q", got)
	}
}

func TestServeNoticeCommandGetsSummaryAndBody(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	out := filepath.Join(t.TempDir(), "got")
	env := runway.Env{Config: runway.DefaultConfig()}
	env.Config.Serve.NoticeCommand = []string{"sh", "-c", `printf '%s\n%s\n' "$1" "$2" > "$0"`, out}
	var stderr bytes.Buffer
	c := &cli{ctx: context.Background(), stderr: &stderr}
	if err := c.noticeSink(env)(notice()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err != nil || len(lines) != 2 || !strings.Contains(lines[0], "runs out") || !strings.Contains(lines[1], "on devbox") {
		t.Errorf("%q %v", b, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr.String())
	}
	env.Config.Serve.NoticeCommand = []string{"sh", "-c", "echo broken >&2; exit 3"}
	if err := c.noticeSink(env)(notice()); err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "[serve] notice_command") {
		t.Errorf("a failing command: %v", err)
	}
}

// TestServeTokenIsTrimmed: a [serve] token with a space or line break
// around it ("token = \"s3cret\\n\"") could never be matched: HTTP trims
// them off the header every sender sends.
func TestServeTokenIsTrimmed(t *testing.T) {
	env := runway.Env{Config: runway.DefaultConfig()}
	env.Config.Serve.Token = " s3cret\n"
	c := &cli{getenv: func(string) string { return "" }}
	if got := c.serveOptions(env, "", false).Token; got != "s3cret" {
		t.Errorf("token %q", got)
	}
}
