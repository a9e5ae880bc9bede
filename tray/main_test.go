package tray

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// childEnv makes the test binary run the tray instead of the tests: systray
// keeps global state and runs once per process, so each tray under test is a
// process of its own.
const childEnv = "RUNWAY_TRAY_TEST_CHILD"

// stateEnv names the child's state folder, where its menu choices are kept.
const stateEnv = "RUNWAY_TRAY_TEST_STATE"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// runChild runs the tray fed by JSON snapshots, one a line on stdin (a
// line "notice {…}" is a notice delivered to the desktop instead). The end
// of stdin cancels it; it reports callbacks on stdout as
// "event: …" lines and exits 0 when Run returns nil, 3 on ErrNoTrayHost.
func runChild() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snapshots := make(chan burn.Snapshot)
	notices := make(chan burn.Notice)
	go func() {
		defer cancel()
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for ok := true; ok && sc.Scan(); {
			if rest, isNotice := bytes.CutPrefix(sc.Bytes(), []byte("notice ")); isNotice {
				ok = forward(ctx, notices, rest)
			} else {
				ok = forward(ctx, snapshots, sc.Bytes())
			}
		}
	}()
	event := func(format string, args ...any) { fmt.Printf("event: "+format+"\n", args...) }
	// With a state folder, the menu's choices are kept there as
	// cmd/runway keeps them.
	notify, mode := true, SessionsAuto
	var choices *Choices
	if dir := os.Getenv(stateEnv); dir != "" {
		var err error
		if choices, err = LoadChoices(dir, filepath.Join(dir, "config.toml")); err != nil {
			event("choices: %v", err)
		}
		notify, mode = choices.Over(notify, mode)
	}
	err := Run(ctx, snapshots, Options{
		StatusLine: func() string { return "claude 5h 42% 38m/h (lasts at ≤26) ▸14:35 (25m before the reset)" },
		Doctor:     func() string { return "doctor: all good\n" },
		Tell: func(summary, body string) error {
			event("tell %s | %s", summary, strings.ReplaceAll(body, "\n", " / "))
			return nil
		},
		OnNotificationsToggle: func(on bool) { event("notifications %v", on) },
		Notifications:         notify,
		SessionListMode:       mode,
		Choices:               choices,
		Notices:               notices,
		Location:              time.UTC,
		Logf:                  func(format string, args ...any) { event("log "+format, args...) },
	})
	switch {
	case errors.Is(err, ErrNoTrayHost):
		event("no tray host: %v", err)
		return 3
	case err != nil:
		event("error: %v", err)
		return 1
	}
	event("run returned")
	return 0
}

// forward decodes a line onto ch; false once ctx has ended.
func forward[T any](ctx context.Context, ch chan<- T, line []byte) bool {
	var v T
	if err := json.Unmarshal(line, &v); err != nil {
		fmt.Printf("event: bad %T: %v\n", v, err)
		return true
	}
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}
