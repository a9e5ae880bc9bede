//go:build linux

package tray

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// This file holds the DBus side of the tests: a private bus, a
// StatusNotifierWatcher and a notification server, all real DBus peers.

// startBus starts a private dbus-daemon for one test and returns its
// address. Without dbus-daemon the test skips, except under CI=true.
func startBus(t *testing.T) string {
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
	var stderr bytes.Buffer // it warns about fd limits it may not raise
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
	// The daemon prints its address once it listens; if it fails it exits
	// and the read ends.
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || len(addr) < 2 {
		t.Fatalf("dbus-daemon printed no address: %q, %v", addr, err)
	}
	return addr[:len(addr)-1]
}

// connect opens a connection to the test bus, closed at cleanup.
func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// watcher is a minimal org.kde.StatusNotifierWatcher, what a panel runs.
type watcher struct {
	conn       *dbus.Conn
	props      *prop.Properties
	registered chan string // the bus names that registered an item

	mu    sync.Mutex
	items []string
}

const watcherPath = "/StatusNotifierWatcher"

// startWatcher exports the watcher object before taking the well-known name,
// so an item reacting to the name appearing finds the object there.
func startWatcher(t *testing.T, addr string) *watcher {
	t.Helper()
	w := &watcher{conn: connect(t, addr), registered: make(chan string, 16)}
	if err := w.conn.Export(w, watcherPath, watcherName); err != nil {
		t.Fatal(err)
	}
	props, err := prop.Export(w.conn, watcherPath, prop.Map{
		watcherName: {
			"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
			"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
			"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.props = props
	reply, err := w.conn.RequestName(watcherName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v, %v", watcherName, reply, err)
	}
	return w
}

// RegisterStatusNotifierItem is called by items with either their bus name or,
// as systray does, their object path; the sender says who it is.
func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.mu.Lock()
	w.items = append(w.items, string(sender)+service)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust(watcherName, "RegisteredStatusNotifierItems", items)
	w.conn.Emit(watcherPath, watcherName+".StatusNotifierItemRegistered", string(sender)+service)
	w.registered <- string(sender)
	return nil
}

func (w *watcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

// stop drops the watcher off the bus, as a panel that restarts does.
func (w *watcher) stop() { w.conn.Close() }

// waitRegistered returns the bus name of the next item that registers.
func (w *watcher) waitRegistered(t *testing.T) string {
	t.Helper()
	select {
	case name := <-w.registered:
		return name
	case <-time.After(15 * time.Second):
		t.Fatal("no StatusNotifierItem registered with the watcher")
		return ""
	}
}

// notifyCall is one Notify call as the server received it.
type notifyCall struct {
	App      string
	Replaces uint32
	Icon     string
	Summary  string
	Body     string
	Urgency  byte
	ImageW   int32
	Timeout  int32
}

// notificationServer is a fake org.freedesktop.Notifications that records
// what it is asked to show and hands out ids as the spec says: a replaced
// notification keeps its id.
type notificationServer struct {
	mu    sync.Mutex
	calls []notifyCall
	last  uint32
}

func startNotificationServer(t *testing.T, addr string) *notificationServer {
	t.Helper()
	s := &notificationServer{}
	conn := connect(t, addr)
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v, %v", reply, err)
	}
	return s
}

func (s *notificationServer) Notify(app string, replaces uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	c := notifyCall{App: app, Replaces: replaces, Icon: icon, Summary: summary, Body: body, Timeout: timeout}
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

func (s *notificationServer) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body"}, nil
}

func (s *notificationServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake", "runway tests", "0", "1.2", nil
}

func (s *notificationServer) CloseNotification(uint32) *dbus.Error { return nil }

func (s *notificationServer) received() []notifyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]notifyCall(nil), s.calls...)
}
