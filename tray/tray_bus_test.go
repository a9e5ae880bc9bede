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

// startTray runs the tray on the bus at addr. With a clipboard, a fake
// xclip leaves what it got in the child's home folder; without, the PATH has
// nothing else either.
func startTray(t *testing.T, addr string, clipboard bool) *trayProc {
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
	tools := map[string]string{
		// An opener that is ever called fails the test (issue 14: the
		// status line was once handed to xdg-open as a file).
		"xdg-open": "#!/bin/sh\n/bin/cp \"$1\" \"$HOME/opened\"\n",
	}
	if clipboard {
		tools["xclip"] = "#!/bin/sh\n/bin/cat > \"$HOME/clipboard\"\n"
	}
	for name, script := range tools {
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
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "PATH="+bin)

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

// send gives the tray a snapshot as the engine does, or after "notice " a
// notice as delivered to the desktop.
func (p *trayProc) send(t *testing.T, prefix string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(append([]byte(prefix), b...), '\n')); err != nil {
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
		for _, s := range g.rows(len(g.Sessions)) {
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

// waitShows polls the item until it shows the view: tooltip, title, label,
// the menu rows, and the icon at every size, pixel for pixel.
func waitShows(t *testing.T, conn *dbus.Conn, name string, v view) dbustest.Item {
	t.Helper()
	want := wantShown(v)
	var it dbustest.Item
	// The icon is part of what must show: a critical notice changes only
	// the icon's colour, so texts alone would match before it is redrawn.
	dbustest.Eventually(t, "the item shows "+v.Tooltip, func() (bool, string) {
		var err error
		it, err = dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		ok := it.Tooltip == v.Tooltip && it.Title == v.Title && it.Label == v.Label && slices.Equal(it.Menu.Shown(), want)
		if !ok {
			return false, fmt.Sprintf("title %q, label %q, tooltip %q, menu:\n%s\nwant:\n%s",
				it.Title, it.Label, it.Tooltip, strings.Join(it.Menu.Shown(), "\n"), strings.Join(want, "\n"))
		}
		return iconsShow(conn, name, v.Icon)
	})
	return it
}

// iconsShow reports whether the item's pixmaps are icon at every size.
func iconsShow(conn *dbus.Conn, name string, icon iconKey) (bool, string) {
	icons, err := dbustest.ReadIcons(conn, name)
	if err != nil {
		return false, err.Error()
	}
	if len(icons) != len(iconSizes) {
		return false, fmt.Sprintf("%d pixmaps, want one per size %v", len(icons), iconSizes)
	}
	for i, size := range iconSizes {
		px := argb(icon.draw(size))
		if icons[i].W != px.W || icons[i].H != px.H || !bytes.Equal(icons[i].Pix, px.Pix) {
			return false, fmt.Sprintf("IconPixmap %d is a %dx%d image other than the %d px %+v icon: centre pixel % x, want % x", i, icons[i].W, icons[i].H, size, icon, icons[i].Pix[len(px.Pix)/2:len(px.Pix)/2+4], px.Pix[len(px.Pix)/2:len(px.Pix)/2+4])
		}
	}
	return true, ""
}

// TestTrayOverDBus runs the real tray against an in-test watcher on a private
// bus: it reads back what a panel would show, feeds it new snapshots, clicks
// its entries, restarts the watcher, and quits it; a second tray starts
// with the choices clicked and finds no clipboard tool.
func TestTrayOverDBus(t *testing.T) {
	t.Setenv(stateEnv, t.TempDir())
	addr := dbustest.StartBus(t)
	w := dbustest.StartWatcher(t, addr)
	conn := dbustest.Connect(t, addr)
	p := startTray(t, addr, true)
	name := w.WaitRegistered(t)
	waitShows(t, conn, name, startingView())
	runout := loadSnapshot(t, "runout")
	checkFirstView(t, conn, name, p, runout)

	// A critical notice out turns the icon red while the window still
	// heads for its run-out; a snapshot on track clears it.
	p.send(t, "notice ", burn.Notice{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour, Critical: true, UrgencyMinutes: 10})
	if v := render(runout, time.UTC, SessionsAuto, 5, true); v.Icon.Tone != toneAlert {
		t.Fatalf("a critical notice gives a %s icon", v.Icon.Tone)
	} else {
		waitShows(t, conn, name, v)
	}
	for _, snap := range []string{"ontrack", "exhausted", "runout"} {
		s := loadSnapshot(t, snap)
		p.send(t, "", s)
		waitShows(t, conn, name, render(s, time.UTC, SessionsAuto, 5, false))
	}
	checkClicks(t, conn, name, p, runout)

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

	// A new tray process on the same bus registers and shows again, with
	// the choices clicked before (Never, Notifications off); this one has
	// no clipboard tool.
	p2 := startTray(t, addr, false)
	name2 := w2.WaitRegistered(t)
	exhausted := loadSnapshot(t, "exhausted")
	p2.send(t, "", exhausted)
	it := waitShows(t, conn, name2, render(exhausted, time.UTC, SessionsNever, 5, false))
	if n, _ := it.Menu.Find("Notifications"); n.Toggle != 0 {
		t.Errorf("after a restart Notifications toggle-state %d, want 0 as clicked", n.Toggle)
	}
	checkNoClipboard(t, conn, name2, p2)
	p2.stdin.Close() // the engine's context ends
	p2.waitEvent(t, "run returned")
	if err := p2.waitExit(t); err != nil {
		t.Fatalf("tray exited with %v when its context ended", err)
	}
}

// checkFirstView: the first snapshot shows with its label signalled, the
// item's properties and the menu's rows and checkboxes.
func checkFirstView(t *testing.T, conn *dbus.Conn, name string, p *trayProc, runout burn.Snapshot) {
	t.Helper()
	// Panels that follow the label listen for XAyatanaNewLabel.
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.kde.StatusNotifierItem"), dbus.WithMatchMember("XAyatanaNewLabel")); err != nil {
		t.Fatal(err)
	}
	labels := make(chan *dbus.Signal, 16)
	conn.Signal(labels)
	defer conn.RemoveSignal(labels)

	p.send(t, "", runout)
	it := waitShows(t, conn, name, render(runout, time.UTC, SessionsAuto, 5, false))
	dbustest.Eventually(t, "an XAyatanaNewLabel signal with 38m/h", func() (bool, string) {
		select {
		case sig := <-labels:
			return fmt.Sprint(sig.Body) == "[38m/h weekly ~999m/h]", fmt.Sprint(sig.Body)
		default:
			return false, "no signal"
		}
	})
	if it.ID != "runway" || it.LabelGuide != labelGuide {
		t.Errorf("Id %q, XAyatanaLabelGuide %q", it.ID, it.LabelGuide)
	}
	if it.Label != "38m/h" || it.Tooltip != "Claude 5h 42.3% · 38m/h · lasts at ≤26 · runs out in 55m · resets in 1h20m\nCodex 5h 12% · ~6.0m/h · lasts at ≤75 · on track to the reset · resets in 3h30m" {
		t.Errorf("label %q, tooltip %q", it.Label, it.Tooltip)
	}
	if _, ok := it.Menu.Find("    my-app 30m/h · 2 subagents · pause → lasts"); !ok {
		t.Errorf("no session row with its pause impact in:\n%s", strings.Join(it.Menu.Shown(), "\n"))
	}
	if n, _ := it.Menu.Find("Notifications"); n.Toggle != 1 {
		t.Errorf("Notifications toggle-state %d, want 1", n.Toggle)
	}
}

// checkClicks: each click reaches its callback or the menu; the status
// line goes to the clipboard and the doctor's report to a notification,
// never to an opener.
func checkClicks(t *testing.T, conn *dbus.Conn, name string, p *trayProc, runout burn.Snapshot) {
	t.Helper()
	dbustest.ClickLabel(t, conn, name, "Always: idle ones too")
	it := waitShows(t, conn, name, render(runout, time.UTC, SessionsAlways, 5, false))
	if n, _ := it.Menu.Find("Always: idle ones too"); n.Toggle != 1 {
		t.Errorf("Always toggle-state %d", n.Toggle)
	}
	if n, _ := it.Menu.Find("Auto: burning and waiting"); n.Toggle != 0 {
		t.Errorf("Auto toggle-state %d", n.Toggle)
	}
	dbustest.ClickLabel(t, conn, name, "Never")
	waitShows(t, conn, name, render(runout, time.UTC, SessionsNever, 5, false))

	dbustest.ClickLabel(t, conn, name, "Notifications")
	p.waitEvent(t, "notifications false")
	waitMenu(t, conn, name, "Notifications unchecked", func(m dbustest.MenuNode) bool {
		n, _ := m.Find("Notifications")
		return n.Toggle == 0
	})

	dbustest.ClickLabel(t, conn, name, "Copy status line")
	waitFile(t, filepath.Join(p.home, "clipboard"), "claude 5h 42% 38m/h (lasts at ≤26) ▸14:35 (25m before the reset)")
	dbustest.ClickLabel(t, conn, name, "Open doctor…")
	p.waitEvent(t, "tell runway doctor | doctor: all good /  / The whole report: runway doctor in a terminal, or "+filepath.Join(p.home, "cache", "runway", "doctor.txt"))
	if _, err := os.Stat(filepath.Join(p.home, "opened")); err == nil {
		t.Error("the doctor's report was handed to xdg-open")
	}
}

// waitMenu polls the item's menu until ok holds.
func waitMenu(t *testing.T, conn *dbus.Conn, name, what string, ok func(dbustest.MenuNode) bool) {
	t.Helper()
	dbustest.Eventually(t, what, func() (bool, string) {
		it, err := dbustest.ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		return ok(it.Menu), strings.Join(it.Menu.Shown(), "\n")
	})
}

// checkNoClipboard: "Copy status line" without a clipboard tool says so in
// the menu and in a notification that carries the line, and opens nothing.
func checkNoClipboard(t *testing.T, conn *dbus.Conn, name string, p *trayProc) {
	t.Helper()
	dbustest.ClickLabel(t, conn, name, "Copy status line")
	// The log line has no prefix of its own: the caller adds "runway:"
	// (it read "runway: warning: runway: tray: …").
	p.waitEvent(t, "log copy status line: no clipboard tool (install wl-clipboard, xclip or xsel)")
	p.waitEvent(t, "tell Status line not copied: no clipboard tool | claude 5h 42% 38m/h (lasts at ≤26) ▸14:35 (25m before the reset) /  / Install wl-clipboard, xclip or xsel to copy it from the menu.")
	waitMenu(t, conn, name, "the menu says it was not copied", func(m dbustest.MenuNode) bool {
		_, ok := m.Find("⚠ Not copied: no clipboard tool (install wl-clipboard, xclip or xsel)")
		return ok
	})
	if _, err := os.Stat(filepath.Join(p.home, "opened")); err == nil {
		t.Error("the status line was handed to xdg-open")
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
