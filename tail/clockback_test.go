package tail

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A clock set forward past the lookback prunes what the files said; set
// back, the Tailer must read the window again, not show it empty.
func TestScanAfterClockWentBack(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	var b strings.Builder
	for sec := 0; sec <= 3600; sec += 60 {
		b.WriteString(claudeUser(sec))
		b.WriteString(claudeAssistant(sec+5, "msg_"+time.Duration(sec).String(), 100+sec, "end_turn"))
	}
	tr.write(path, b.String())
	now := at("2026-12-01T09:00:00Z").Add(time.Hour)
	if err := os.Chtimes(path, now, now); err != nil {
		t.Fatal(err)
	}
	cold := func(now time.Time) Usage {
		c := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 30 * time.Minute})
		c.Scan(now)
		return c.Usage(now.Add(-30 * time.Minute))
	}
	tl := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 30 * time.Minute})
	tl.Scan(now)
	before := tl.Usage(now.Add(-30 * time.Minute))
	if len(before.Events) == 0 {
		t.Fatal("no events in the window")
	}
	tl.Scan(now.Add(5 * time.Hour)) // prunes every event
	if u := tl.Usage(now.Add(5 * time.Hour).Add(-30 * time.Minute)); len(u.Events) != 0 {
		t.Fatalf("%d events five hours later, want none", len(u.Events))
	}
	tl.mu.Lock()
	behind := tl.behindLocked(now)
	tl.mu.Unlock()
	if !behind {
		t.Error("behindLocked: false after the clock went back")
	}
	tl.Scan(now)
	after := tl.Usage(now.Add(-30 * time.Minute))
	if !reflect.DeepEqual(after, before) || !reflect.DeepEqual(after, cold(now)) {
		t.Errorf("after the clock went back: %d events, want %d (as before) and a cold read's %d", len(after.Events), len(before.Events), len(cold(now).Events))
	}
}
