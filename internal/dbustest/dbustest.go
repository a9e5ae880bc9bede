// Package dbustest runs real DBus peers for the tray's tests and those of
// `runway tray`: a private session bus, a StatusNotifierWatcher, and a
// notification server that records what it is asked; it reads a
// StatusNotifierItem back and clicks its menu as a panel does.
package dbustest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Wait bounds every wait on another process: it only matters when something
// is broken.
const Wait = 15 * time.Second

// StartBus starts a private dbus-daemon for one test, stopped at cleanup,
// and returns its address. Without dbus-daemon the test skips, except under
// CI=true, where it fails.
func StartBus(t testing.TB) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dbus-daemon is not installed (apt-get install dbus)")
		}
		t.Skip("dbus-daemon is not installed (apt-get install dbus)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	err = os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=`+dir+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("dbus-daemon said:\n%s", stderr.Bytes())
		}
	})
	// The address comes once it listens; if it fails, the read ends.
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || len(addr) < 2 {
		t.Fatalf("dbus-daemon printed no address: %q, %v", addr, err)
	}
	return addr[:len(addr)-1]
}

// Connect opens a connection to the bus at addr, closed at cleanup.
func Connect(t testing.TB, addr string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Eventually calls f until it reports ok, failing the test after Wait with
// the state f described last: state held by another process.
func Eventually(t testing.TB, what string, f func() (ok bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for {
		ok, state := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %s", what, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// CheckRaces fails the test on a race report in a child's stderr where an
// access is runway's own; races wholly inside fyne.io/systray (which runway
// cannot fix) are logged.
func CheckRaces(t testing.TB, stderr string) {
	t.Helper()
	reports := strings.Split(stderr, "WARNING: DATA RACE")
	for _, r := range reports[1:] {
		lines := strings.Split(r, "\n")
		ours := false
		for i, l := range lines {
			l = strings.TrimSpace(l)
			access := strings.HasPrefix(l, "Read at") || strings.HasPrefix(l, "Write at") ||
				strings.HasPrefix(l, "Previous read at") || strings.HasPrefix(l, "Previous write at")
			if access && i+1 < len(lines) && strings.Contains(lines[i+1], "github.com/agentrunway/runway") {
				ours = true
			}
		}
		if ours {
			t.Errorf("data race in runway's code:%s", r)
		} else {
			t.Logf("a race inside a dependency, tolerated:%s", r)
		}
	}
}

const watcherName, watcherPath = "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"

// Watcher is the part of an org.kde.StatusNotifierWatcher an item calls:
// systray registers and reads nothing back.
type Watcher struct {
	conn       *dbus.Conn
	registered chan string // the bus names that registered an item
}

// StartWatcher puts a watcher on the bus at addr, its object exported before
// it takes the name an item reacts to.
func StartWatcher(t testing.TB, addr string) *Watcher {
	t.Helper()
	w := &Watcher{conn: Connect(t, addr), registered: make(chan string, 16)}
	if err := w.conn.ExportMethodTable(map[string]any{
		"RegisterStatusNotifierItem": func(sender dbus.Sender, _ string) *dbus.Error {
			w.registered <- string(sender)
			return nil
		},
		"RegisterStatusNotifierHost": func(string) *dbus.Error { return nil },
	}, watcherPath, watcherName); err != nil {
		t.Fatal(err)
	}
	reply, err := w.conn.RequestName(watcherName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v, %v", watcherName, reply, err)
	}
	return w
}

// Stop drops the watcher off the bus, as a panel that restarts does.
func (w *Watcher) Stop() { w.conn.Close() }

// WaitRegistered returns the bus name of the next item that registers.
func (w *Watcher) WaitRegistered(t testing.TB) string {
	t.Helper()
	select {
	case name := <-w.registered:
		return name
	case <-time.After(Wait):
		t.Fatal("no StatusNotifierItem registered with the watcher")
		return ""
	}
}

// NotifyCall is one Notify call as the server received it.
type NotifyCall struct {
	App      string
	Replaces uint32
	Icon     string
	Summary  string
	Body     string
	Urgency  byte
	ImageW   int32 // the width of the image-data hint, 0 without one
	Timeout  int32
}

// imageData is the notification spec's raw image hint, (iiibiiay).
type imageData struct {
	Width, Height, Rowstride int32
	HasAlpha                 bool
	BitsPerSample, Channels  int32
	Data                     []byte
}

// Notifications is a fake org.freedesktop.Notifications: it records what it
// is asked, keeps a replaced notification's id as the spec says, and refuses
// hints of the wrong type, as a real server may.
type Notifications struct {
	mu    sync.Mutex
	calls []NotifyCall
	last  uint32
}

// StartNotifications puts a notification server on the bus at addr.
func StartNotifications(t testing.TB, addr string) *Notifications {
	t.Helper()
	s := &Notifications{}
	conn := Connect(t, addr)
	const path, iface = "/org/freedesktop/Notifications", "org.freedesktop.Notifications"
	if err := conn.ExportMethodTable(map[string]any{
		"Notify":               s.notify,
		"GetCapabilities":      func() ([]string, *dbus.Error) { return []string{"body"}, nil },
		"GetServerInformation": func() (string, string, string, string, *dbus.Error) { return "fake", "runway tests", "0", "1.2", nil },
		"CloseNotification":    func(uint32) *dbus.Error { return nil },
	}, path, iface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v, %v", iface, reply, err)
	}
	return s
}

func (s *Notifications) notify(app string, replaces uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	c := NotifyCall{App: app, Replaces: replaces, Icon: icon, Summary: summary, Body: body, Timeout: timeout}
	if u, ok := hints["urgency"]; ok {
		b, ok := u.Value().(byte)
		if !ok {
			return 0, dbus.MakeFailedError(fmt.Errorf("urgency is %T, not a byte", u.Value()))
		}
		c.Urgency = b
	}
	if img, ok := hints["image-data"]; ok {
		var d imageData
		if err := dbus.Store([]any{img.Value()}, &d); err != nil {
			return 0, dbus.MakeFailedError(err)
		}
		if int(d.Rowstride)*int(d.Height) != len(d.Data) {
			return 0, dbus.MakeFailedError(fmt.Errorf("image-data: %d bytes for %d rows of %d", len(d.Data), d.Height, d.Rowstride))
		}
		c.ImageW = d.Width
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	if replaces != 0 && replaces <= s.last {
		return replaces, nil
	}
	s.last++
	return s.last, nil
}

// Received returns the calls so far, oldest first.
func (s *Notifications) Received() []NotifyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]NotifyCall(nil), s.calls...)
}
