package quota

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dirwatch"
)

// TestLogMarkSaysWhenToReadAgain: an append or a file renamed into place
// (Compact's) is a change; a log as it was, or not there, is not.
func TestLogMarkSaysWhenToReadAgain(t *testing.T) {
	dir := t.TempDir()
	log := LogIn(dir)
	none := log.Mark()
	if none.ChangedSince(LogMark{}) {
		t.Fatal("a missing log changed")
	}
	w, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	created := log.Mark()
	if !created.ChangedSince(none) {
		t.Fatal("a new log did not change since none")
	}
	if created.ChangedSince(created) {
		t.Fatal("a log changed since itself")
	}
	if err := w.Append(claude5h(t0, 40, burn.SourceStatusline)); err != nil {
		t.Fatal(err)
	}
	appended := log.Mark()
	if !appended.ChangedSince(created) {
		t.Fatal("an append was not a change")
	}
	b, _ := os.ReadFile(log.Path())
	tmp := filepath.Join(dir, "replacement")
	os.WriteFile(tmp, b, 0o600)
	os.Chtimes(tmp, time.Time{}, appended.fi.ModTime())
	if err := os.Rename(tmp, log.Path()); err != nil {
		t.Fatal(err)
	}
	if !log.Mark().ChangedSince(appended) {
		t.Fatal("another file of the same size and time was not a change")
	}
}

// TestWatchLogCallsOnAppend: an append to the log calls changed; a folder
// that cannot be watched is an error at once, not a silent wait.
func TestWatchLogCallsOnAppend(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	changed := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- WatchLog(ctx, dir, dirwatch.New, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	w, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The watch starts in its own goroutine: append until it has seen one.
	// Only how soon the test ends depends on the pause, never its verdict.
	for seen := false; !seen; {
		w.Append(claude5h(t0, 40, burn.SourceStatusline))
		select {
		case <-changed:
			seen = true
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch ended with %v", err)
	}

	file := filepath.Join(t.TempDir(), "state")
	os.WriteFile(file, nil, 0o600)
	err = WatchLog(t.Context(), file, dirwatch.New, func() { t.Error("changed called for a folder that is a file") })
	if err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a file as the folder: %v", err)
	}
}
