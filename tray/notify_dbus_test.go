//go:build linux

package tray

import (
	"testing"
	"time"
)

// TestNotifierOverDBus delivers the scenario to a fake notification server on
// a private bus and checks each call: text, replaces_id of the window's
// previous notification, urgency.
func TestNotifierOverDBus(t *testing.T) {
	addr := startBus(t)
	server := startNotificationServer(t, addr)
	n := newDBusNotifier(connect(t, addr), "runway", time.UTC)
	for _, notice := range noticeScenario() {
		if err := n.Notify(notice); err != nil {
			t.Fatal(err)
		}
	}
	want := []notifyCall{
		{Replaces: 0, Icon: "dialog-warning", Urgency: 1}, // Claude 5h: new, id 1
		{Replaces: 1, Icon: "dialog-warning", Urgency: 1}, // replaces it
		{Replaces: 0, Icon: "dialog-warning", Urgency: 1}, // Codex weekly: its own, id 2
		{Replaces: 1, Icon: "dialog-error", Urgency: 2},   // exhausted: critical
		{Replaces: 1, Icon: "dialog-information", Urgency: 0},
	}
	got := server.received()
	if len(got) != len(want) {
		t.Fatalf("%d Notify calls, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		w.App, w.Summary, w.Body, w.ImageW, w.Timeout = "runway", scenarioText[i][0], scenarioText[i][1], iconSize, -1
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
	addr := startBus(t)
	server := startNotificationServer(t, addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	n, err := NewNotifier("")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Notify(noticeScenario()[3]); err != nil {
		t.Fatal(err)
	}
	if got := server.received(); len(got) != 1 || got[0].App != "runway" || got[0].Urgency != 2 {
		t.Errorf("got %+v", got)
	}
}

// TestNewNotifierNoBus fails with a message instead of launching a bus.
func TestNewNotifierNoBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/nobus")
	if _, err := NewNotifier("runway"); err == nil {
		t.Fatal("NewNotifier succeeded with no bus")
	}
}
