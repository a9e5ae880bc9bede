//go:build linux

package tray

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/dbustest"
)

// trayProc is the tray running in a child process (see runChild).
type trayProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	home   string
	events chan string   // "event: …" lines, closed at exit
	exited chan struct{} // closed once the process is reaped
	err    error         // its exit status, set before exited closes
	stderr bytes.Buffer
}

// startTray runs the tray on the bus at addr, with fake clipboard and opener
// programs that leave what they got in the child's home folder.
func startTray(t *testing.T, addr string) *trayProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]string{
		"xclip":    "#!/bin/sh\ncat > \"$HOME/clipboard\"\n",
		"xdg-open": "#!/bin/sh\ncp \"$1\" \"$HOME/opened\"\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "HOME", "XDG_CACHE_HOME", "PATH":
			continue
		}
		env = append(env, kv)
	}
	// Under -race the child reports races but exits normally: systray has
	// races of its own (see checkRaces), and the test judges the reports.
	env = append(env, "GORACE=exitcode=0 atexit_sleep_ms=0", childEnv+"=1", "DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+home,
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "PATH="+bin+":"+os.Getenv("PATH"))

	p := &trayProc{cmd: exec.Command(exe), home: home, events: make(chan string, 256), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = &p.stderr
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				p.events <- e
			}
		}
		// Wait only once stdout is drained, as exec asks.
		p.err = p.cmd.Wait()
		close(p.exited)
		close(p.events)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		dbustest.CheckRaces(t, p.stderr.String())
		if t.Failed() {
			t.Logf("tray stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// send gives the tray a snapshot, as the engine does.
func (p *trayProc) send(t *testing.T, s burn.Snapshot) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// waitEvent reads events until want, failing on exit or after a deadline.
func (p *trayProc) waitEvent(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(dbustest.Wait)
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				t.Fatalf("tray exited before %q", want)
			}
			if e == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q from the tray", want)
		}
	}
}

// waitExit waits for the tray process to end and returns its status.
func (p *trayProc) waitExit(t *testing.T) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(dbustest.Wait):
		t.Fatal("the tray did not exit")
		return nil
	}
}

// wantShown is the menu a view should produce.
func wantShown(v view) []string {
	var out []string
	for _, g := range v.Groups {
		for _, s := range append(append([]string{g.Header, g.Runout, g.Weekly}, g.Sessions...), g.More, g.Elsewhere) {
			if s != "" {
				out = append(out, menuLabel(s))
			}
		}
	}
	if v.Warning != "" {
		out = append(out, menuLabel(v.Warning))
	}
	return append(out, "---", "Copy status line", "Notifications", "Session list", "Open doctor…", "---", "Quit")
}

// argb is an icon as an SNI host expects it: ARGB32, network byte order.
func argb(k iconKey) []byte {
	img := k.draw()
	var out []byte
	for i := 0; i < len(img.Pix); i += 4 {
		out = append(out, img.Pix[i+3], img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	return out
}

// waitShows polls the item until it shows the view: tooltip, title, icon and
// the menu rows.
func waitShows(t *testing.T, conn *dbus.Conn, name string, v view) dbustest.Item {
	t.Helper()
	want := wantShown(v)
	title := v.Title
	if title == "" {
		title = "runway"
	}
	var it dbustest.Item
	dbustest.Eventually(t, "the item shows "+v.Tooltip, func() (bool, string) {
		var err error
		it, err = dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		ok := it.Tooltip == v.Tooltip && it.Title == title && slices.Equal(it.Menu.Shown(), want)
		return ok, fmt.Sprintf("title %q, tooltip %q, menu:\n%s\nwant:\n%s",
			it.Title, it.Tooltip, strings.Join(it.Menu.Shown(), "\n"), strings.Join(want, "\n"))
	})
	icon, err := dbustest.ReadIcon(conn, name)
	if err != nil {
		t.Fatal(err)
	}
	if icon.W != iconSize || icon.H != iconSize || !bytes.Equal(icon.Pix, argb(v.Icon)) {
		t.Errorf("IconPixmap is a %dx%d image other than the %s %d%% gauge", icon.W, icon.H, v.Icon.State, v.Icon.Step)
	}
	return it
}

// TestTrayOverDBus runs the real tray against an in-test watcher on a private
// bus: it reads back what a panel would show, feeds it new snapshots, clicks
// its entries, restarts the watcher, and quits it.
func TestTrayOverDBus(t *testing.T) {
	addr := dbustest.StartBus(t)
	w := dbustest.StartWatcher(t, addr)
	conn := dbustest.Connect(t, addr)
	p := startTray(t, addr)
	name := w.WaitRegistered(t)

	waitShows(t, conn, name, startingView())

	runout := loadSnapshot(t, "runout")
	p.send(t, runout)
	it := waitShows(t, conn, name, render(runout, time.UTC, SessionsAuto, 5))
	if it.Tooltip != "claude 38 m/h ▸14:35 · codex ~6 m/h" {
		t.Errorf("tooltip %q", it.Tooltip)
	}
	if _, ok := it.Menu.Find("    my-app 30 m/h · 2 subagents · pause → lasts"); !ok {
		t.Errorf("no session row with its pause impact in:\n%s", strings.Join(it.Menu.Shown(), "\n"))
	}
	if n, _ := it.Menu.Find("Notifications"); n.Toggle != 1 {
		t.Errorf("Notifications toggle-state %d, want 1", n.Toggle)
	}

	exhausted := loadSnapshot(t, "exhausted")
	p.send(t, exhausted)
	waitShows(t, conn, name, render(exhausted, time.UTC, SessionsAuto, 5))

	// Settings: each click reaches the engine's callback and the menu.
	p.send(t, runout)
	waitShows(t, conn, name, render(runout, time.UTC, SessionsAuto, 5))
	dbustest.ClickLabel(t, conn, name, "Always: idle ones too")
	p.waitEvent(t, "session list always")
	it = waitShows(t, conn, name, render(runout, time.UTC, SessionsAlways, 5))
	if n, _ := it.Menu.Find("Always: idle ones too"); n.Toggle != 1 {
		t.Errorf("Always toggle-state %d", n.Toggle)
	}
	if n, _ := it.Menu.Find("Auto: burning and waiting"); n.Toggle != 0 {
		t.Errorf("Auto toggle-state %d", n.Toggle)
	}
	dbustest.ClickLabel(t, conn, name, "Never")
	p.waitEvent(t, "session list never")
	waitShows(t, conn, name, render(runout, time.UTC, SessionsNever, 5))

	dbustest.ClickLabel(t, conn, name, "Notifications")
	p.waitEvent(t, "notifications false")
	dbustest.Eventually(t, "Notifications unchecked", func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		n, _ := it.Menu.Find("Notifications")
		return n.Toggle == 0, fmt.Sprint("toggle-state ", n.Toggle)
	})

	dbustest.ClickLabel(t, conn, name, "Copy status line")
	waitFile(t, filepath.Join(p.home, "clipboard"), "claude 5h 42% 38m/h ▸14:35 (25m before reset)")
	dbustest.ClickLabel(t, conn, name, "Open doctor…")
	waitFile(t, filepath.Join(p.home, "opened"), "doctor: all good\n")

	// A panel that restarts gets the item back.
	w.Stop()
	w2 := dbustest.StartWatcher(t, addr)
	if again := w2.WaitRegistered(t); again != name {
		t.Errorf("re-registered as %s, was %s", again, name)
	}

	dbustest.ClickLabel(t, conn, name, "Quit")
	p.waitEvent(t, "run returned")
	if err := p.waitExit(t); err != nil {
		t.Fatalf("tray exited with %v after Quit", err)
	}

	// A new tray process on the same bus registers and shows again.
	p2 := startTray(t, addr)
	name2 := w2.WaitRegistered(t)
	p2.send(t, exhausted)
	waitShows(t, conn, name2, render(exhausted, time.UTC, SessionsAuto, 5))
	p2.stdin.Close() // the engine's context ends
	p2.waitEvent(t, "run returned")
	if err := p2.waitExit(t); err != nil {
		t.Fatalf("tray exited with %v when its context ended", err)
	}
}

// waitFile waits for a fake helper program to leave its file.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	dbustest.Eventually(t, path, func() (bool, string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err.Error()
		}
		return string(b) == want, fmt.Sprintf("%q", b)
	})
}

// TestTraySignal: SIGTERM cancels the child's context; the tray leaves the
// bus and the process exits cleanly.
func TestTraySignal(t *testing.T) {
	addr := dbustest.StartBus(t)
	w := dbustest.StartWatcher(t, addr)
	p := startTray(t, addr)
	w.WaitRegistered(t)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	p.waitEvent(t, "run returned")
	if err := p.waitExit(t); err != nil {
		t.Fatalf("exit status %v", err)
	}
}

// TestNoTrayHost: with a bus but no watcher, or no bus at all, Run says so
// at once instead of starting systray.
func TestNoTrayHost(t *testing.T) {
	addr := dbustest.StartBus(t)
	for name, bus := range map[string]string{
		"no watcher": addr,
		"no bus":     "unix:path=" + filepath.Join(t.TempDir(), "nothing-here"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
			err := Run(context.Background(), nil, Options{})
			if !errors.Is(err, ErrNoTrayHost) {
				t.Fatalf("Run: %v, want ErrNoTrayHost", err)
			}
		})
	}
}
