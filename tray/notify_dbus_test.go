//go:build linux

package tray

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dbustest"
	"github.com/agentrunway/runway/text"
)

// TestNotifierOverDBus delivers a Claude 5-hour window running out, then
// running dry and resetting, with a Codex weekly window going low on the
// side, to a fake notification server on a private bus, and checks each
// call: text.Notice's words, replaces_id of the window's previous
// notification, urgency, icon.
func TestNotifierOverDBus(t *testing.T) {
	addr := dbustest.StartBus(t)
	server := dbustest.StartNotifications(t, addr)
	now := *at("2026-03-02T14:00:00Z")
	n := newDBusNotifier(dbustest.Connect(t, addr), time.UTC, func() time.Time { return now })
	claude := func(k burn.NoticeKind, runout string) burn.Notice {
		return burn.Notice{Kind: k, Provider: burn.Claude, Window: burn.FiveHour, UsedPercent: 81, ResetsAt: at("2026-03-02T15:00:00Z"), RunoutAt: at(runout)}
	}
	exhausted := claude(burn.NoticeExhausted, "2026-03-02T14:00:00Z")
	exhausted.Critical = true
	notices := []burn.Notice{
		claude(burn.NoticeBurningFast, "2026-03-02T14:35:00Z"),
		claude(burn.NoticeBurningFast, "2026-03-02T14:20:00Z"),
		{Kind: burn.NoticeLow, Provider: burn.Codex, Window: burn.Weekly, UsedPercent: 91.6, ResetsAt: at("2026-03-04T08:00:00Z")},
		exhausted,
		claude(burn.NoticeReset, "2026-03-02T20:00:00Z"),
	}
	want := []dbustest.NotifyCall{
		{Replaces: 0, Icon: "dialog-warning", Urgency: 1}, // Claude 5h: new, id 1
		{Replaces: 1, Icon: "dialog-warning", Urgency: 1}, // replaces it
		{Replaces: 0, Icon: "dialog-warning", Urgency: 1}, // Codex weekly: its own, id 2
		{Replaces: 1, Icon: "dialog-error", Urgency: 2},   // exhausted: critical
		{Replaces: 1, Icon: "dialog-information", Urgency: 0},
	}
	for _, notice := range notices {
		if err := n.Notify(notice); err != nil {
			t.Fatal(err)
		}
	}
	got := server.Received()
	if len(got) != len(want) {
		t.Fatalf("%d Notify calls, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		w.Summary, w.Body = text.Notice(notices[i], now, time.UTC)
		w.App, w.ImageW, w.Timeout = "runway", noticeIconSize, -1
		if got[i] != w {
			t.Errorf("call %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	if err := n.Close(); err != nil {
		t.Error(err)
	}
}

// TestNewNotifier finds the bus through DBUS_SESSION_BUS_ADDRESS, as the
// tray process does.
func TestNewNotifier(t *testing.T) {
	addr := dbustest.StartBus(t)
	server := dbustest.StartNotifications(t, addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	n, err := NewNotifier()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Notify(burn.Notice{Kind: burn.NoticeExhausted, Provider: burn.Claude, Window: burn.FiveHour, Critical: true}); err != nil {
		t.Fatal(err)
	}
	if got := server.Received(); len(got) != 1 || got[0].App != "runway" || got[0].Urgency != 2 {
		t.Errorf("got %+v", got)
	}
}

// TestNewNotifierNoBus fails with a message instead of launching a bus.
func TestNewNotifierNoBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/nobus")
	if _, err := NewNotifier(); err == nil {
		t.Fatal("NewNotifier succeeded with no bus")
	}
}

// TestDecideToDesktop drives burn.Decide over a Claude 5-hour window heading
// for run-out before its 15:00 reset, restarts halfway (the memory goes
// through JSON, as the state folder keeps it), and checks what reaches the
// notification server: one notice per urgency bucket, none while on track,
// none repeated, each replacing the last.
func TestDecideToDesktop(t *testing.T) {
	addr := dbustest.StartBus(t)
	server := dbustest.StartNotifications(t, addr)
	var now time.Time // each notice is shown at its snapshot's time
	n := newDBusNotifier(dbustest.Connect(t, addr), time.UTC, func() time.Time { return now })
	reset := *at("2026-03-02T15:00:00Z")
	snapshot := func(now string, used float64, runout string) burn.Snapshot {
		w := &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: used, ResetsAt: &reset,
			Source: burn.SourceStatusline, ObservedAt: *at(now), Fresh: true, State: burn.OnTrack}
		switch {
		case used >= 100:
			w.State = burn.Exhausted
		case runout != "":
			w.State, w.RunoutAt = burn.RunoutBeforeReset, at(runout)
		}
		mine := burn.SessionStatus{Provider: burn.Claude, ID: "1a2b3c4d-x", Project: "/home/ada/src/my-app",
			RateKind: burn.Measured, QuotaMinutesPerHour: 70, PauseLastsToReset: true}
		return burn.Snapshot{At: *at(now), Sessions: []burn.SessionStatus{mine}, Providers: []burn.ProviderStatus{{
			Provider: burn.Claude, Window: w, State: w.State, RunoutAt: w.RunoutAt,
			Burn: burn.Burn{QuotaMinutesPerHour: 70, Method: burn.MethodMeasured},
		}}}
	}
	steps := []struct {
		s       burn.Snapshot
		restart bool
	}{
		{s: snapshot("2026-03-02T13:00:00Z", 40, "")},                     // on track: nothing
		{s: snapshot("2026-03-02T13:50:00Z", 70, "2026-03-02T14:45:00Z")}, // 55m left: the 60 bucket
		{s: snapshot("2026-03-02T13:52:00Z", 71, "2026-03-02T14:47:00Z")}, // same bucket: nothing
		{s: snapshot("2026-03-02T14:20:00Z", 83, "2026-03-02T14:45:00Z")}, // 25 min: the 30 bucket
		{s: snapshot("2026-03-02T14:21:00Z", 84, "2026-03-02T14:45:00Z"), restart: true},
		{s: snapshot("2026-03-02T14:38:00Z", 97, "2026-03-02T14:46:00Z")}, // 8 min: the 10 bucket, critical
		{s: snapshot("2026-03-02T14:39:00Z", 97, "2026-03-02T14:46:00Z"), restart: true},
		{s: snapshot("2026-03-02T14:47:00Z", 100, "")}, // exhausted, critical
	}
	var mem burn.NoticeMemory
	for _, st := range steps {
		if st.restart {
			b, err := json.Marshal(mem)
			if err != nil {
				t.Fatal(err)
			}
			mem = burn.NoticeMemory{}
			if err := json.Unmarshal(b, &mem); err != nil {
				t.Fatal(err)
			}
		}
		var notices []burn.Notice
		notices, mem = burn.Decide(st.s, mem, burn.DefaultConfig())
		now = st.s.At
		for _, notice := range notices {
			if err := n.Notify(notice); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []dbustest.NotifyCall{
		{Replaces: 0, Icon: "dialog-warning", Urgency: 1, Summary: "Claude 5h runs out in 55m — 14:45, 15m before the reset"},
		{Replaces: 1, Icon: "dialog-warning", Urgency: 1, Summary: "Claude 5h runs out in 25m — 14:45, 15m before the reset"},
		{Replaces: 1, Icon: "dialog-error", Urgency: 2, Summary: "Claude 5h runs out in 8m — 14:46, 14m before the reset"},
		{Replaces: 1, Icon: "dialog-error", Urgency: 2, Summary: "Claude 5h is exhausted, resets in 13m — 15:00", Body: "Agents on this account stall until the reset."},
	}
	got := server.Received()
	if len(got) != len(want) {
		t.Fatalf("%d notifications, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		w.App, w.ImageW, w.Timeout = "runway", noticeIconSize, -1
		if w.Body == "" {
			w.Body = "my-app burns 70m/h; pausing it lasts to the reset."
		}
		if got[i] != w {
			t.Errorf("notification %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
}
