//go:build linux || freebsd || openbsd || netbsd || windows || (darwin && cgo)

package tray

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"fyne.io/systray"

	"github.com/agentrunway/runway/burn"
)

// started guards systray, which keeps its state in globals and can run once
// per process.
var started atomic.Bool

// Run shows the tray and renders every snapshot received until ctx ends or
// the user clicks Quit; both return nil. With no tray host it returns an
// error matching ErrNoTrayHost (errors.Is) at once, saying what is missing,
// before touching systray, which would otherwise wait forever for a bus that
// is not there. Run can be called once per process,
// and from the main goroutine: macOS runs its event loop there. It handles no
// signals: the caller cancels ctx. A closed snapshots channel leaves the last
// snapshot showing.
func Run(ctx context.Context, snapshots <-chan burn.Snapshot, opts Options) error {
	if err := checkTrayHost(ctx); err != nil {
		return err
	}
	if !started.CompareAndSwap(false, true) {
		return errors.New("tray: Run called twice; the tray can run once per process")
	}
	opts = opts.withDefaults()
	runSystray(func() *menu { return newMenu(opts) }, func(m *menu) {
		m.apply(startingView())
		m.loop(ctx, snapshots, opts.Notices)
	})
	return nil
}

// row is one preallocated menu item and what it shows now, so an update
// touches only the rows that changed (each change is a DBus signal).
type row struct {
	item    *systray.MenuItem
	label   string
	visible bool
}

func newRow() *row {
	r := &row{item: systray.AddMenuItem("", "")}
	r.item.Hide()
	return r
}

// set shows label, or hides the row when label is "".
func (r *row) set(label string) {
	if label == "" {
		if r.visible {
			r.item.Hide()
			r.visible = false
		}
		return
	}
	// DBus refuses strings that are not UTF-8, and project paths need not be.
	label = menuLabel(strings.ToValidUTF8(label, "\uFFFD"))
	if label != r.label {
		r.item.SetTitle(label)
		r.label = label
	}
	if !r.visible {
		r.item.Show()
		r.visible = true
	}
}

type groupRows struct {
	header, runout, weekly *row
	sessions               []*row
	more, elsewhere        *row
}

// menu is the tray's state: the rows, the settings the menu changes, and the
// last snapshot, rendered again when a setting changes.
type menu struct {
	opts    Options
	face    face
	groups  []groupRows
	warning *row
	note    *row // what became of the last click, when it went wrong
	notes   chan string

	copyLine, notifications, doctor, quit *systray.MenuItem
	modes                                 map[string]*systray.MenuItem

	mode   string
	notify bool
	last   *burn.Snapshot
	shown  view
	fresh  bool // nothing shown yet: set every part
	// critical are the critical notices out, by window, until the window
	// stops heading for its run-out: the icon is red meanwhile.
	critical map[string]burn.Notice
}

// action is a click on one of the menu's entries.
type action int

const (
	actCopy action = iota
	actNotifications
	actModeAuto
	actModeAlways
	actModeNever
	actDoctor
	actQuit
)

// newMenu creates every item once: systray can hide and relabel items
// cheaply but not rebuild a menu.
func newMenu(opts Options) *menu {
	m := &menu{opts: opts, mode: opts.SessionListMode, notify: opts.Notifications, fresh: true, critical: map[string]burn.Notice{}}
	for range maxProviders {
		g := groupRows{header: newRow(), runout: newRow(), weekly: newRow()}
		for range opts.MaxSessionRows {
			g.sessions = append(g.sessions, newRow())
		}
		g.more, g.elsewhere = newRow(), newRow()
		m.groups = append(m.groups, g)
	}
	m.warning = newRow()
	m.note = newRow()
	m.notes = make(chan string, 4)
	systray.AddSeparator()
	m.copyLine = systray.AddMenuItem("Copy status line", "Copy the `runway now` line")
	m.notifications = systray.AddMenuItemCheckbox("Notifications", "Warn before a window runs out", m.notify)
	list := systray.AddMenuItem("Session list", "Which sessions the menu lists")
	m.modes = map[string]*systray.MenuItem{
		SessionsAuto:   list.AddSubMenuItemCheckbox("Auto: burning and waiting", "", m.mode == SessionsAuto),
		SessionsAlways: list.AddSubMenuItemCheckbox("Always: idle ones too", "", m.mode == SessionsAlways),
		SessionsNever:  list.AddSubMenuItemCheckbox("Never", "", m.mode == SessionsNever),
	}
	m.doctor = systray.AddMenuItem("Open doctor…", "What runway found and what is missing")
	systray.AddSeparator()
	m.quit = systray.AddMenuItem("Quit", "Quit "+opts.AppName)
	return m
}

// loop renders snapshots and answers clicks until ctx ends or Quit is
// clicked; then runSystray ends systray.
func (m *menu) loop(ctx context.Context, snapshots <-chan burn.Snapshot, notices <-chan burn.Notice) {
	clicks := make(chan action, 8)
	stop := make(chan struct{})
	defer close(stop)
	go m.forwardClicks(clicks, stop)
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-snapshots:
			if !ok {
				snapshots = nil
				continue
			}
			// Render only the newest of a burst.
		drain:
			for {
				select {
				case next, ok := <-snapshots:
					if !ok {
						snapshots = nil
						break drain
					}
					s = next
				default:
					break drain
				}
			}
			m.last = &s
			m.render()
		case n, ok := <-notices:
			if !ok {
				notices = nil
				continue
			}
			m.noticeOut(n)
			m.render()
		case note := <-m.notes:
			m.note.set(note)
		case a := <-clicks:
			if a == actQuit {
				return
			}
			m.do(a)
		}
	}
}

// forwardClicks waits on the items' channels on its own, because systray
// drops a click when nobody is receiving at that instant.
func (m *menu) forwardClicks(clicks chan<- action, stop <-chan struct{}) {
	for {
		var a action
		select {
		case <-m.copyLine.ClickedCh:
			a = actCopy
		case <-m.notifications.ClickedCh:
			a = actNotifications
		case <-m.modes[SessionsAuto].ClickedCh:
			a = actModeAuto
		case <-m.modes[SessionsAlways].ClickedCh:
			a = actModeAlways
		case <-m.modes[SessionsNever].ClickedCh:
			a = actModeNever
		case <-m.doctor.ClickedCh:
			a = actDoctor
		case <-m.quit.ClickedCh:
			a = actQuit
		case <-stop:
			return
		}
		select {
		case clicks <- a:
		case <-stop:
			return
		}
	}
}

func (m *menu) do(a action) {
	switch a {
	// The engine's text may take a while (doctor probes sources): the menu
	// keeps answering meanwhile.
	case actCopy:
		if f := m.opts.StatusLine; f != nil {
			go func() { m.notes <- copyLine(m.opts, f()) }()
		}
	case actDoctor:
		if f := m.opts.Doctor; f != nil {
			go func() { m.notes <- showDoctor(m.opts, f()) }()
		}
	case actNotifications:
		m.notify = !m.notify
		if m.notify {
			m.notifications.Check()
		} else {
			m.notifications.Uncheck()
		}
		if m.opts.OnNotificationsToggle != nil {
			m.opts.OnNotificationsToggle(m.notify)
		}
	case actModeAuto, actModeAlways, actModeNever:
		mode := map[action]string{actModeAuto: SessionsAuto, actModeAlways: SessionsAlways, actModeNever: SessionsNever}[a]
		for name, item := range m.modes {
			if name == mode {
				item.Check()
			} else {
				item.Uncheck()
			}
		}
		if mode != m.mode {
			m.mode = mode
			if m.opts.OnSessionListMode != nil {
				m.opts.OnSessionListMode(mode)
			}
			m.render()
		}
	}
}

// noticeOut records a notice delivered to the desktop: a critical one
// keeps the icon red, a reset clears its window's.
func (m *menu) noticeOut(n burn.Notice) {
	key := string(n.Provider) + "/" + string(n.Window)
	switch {
	case n.Kind == burn.NoticeReset:
		delete(m.critical, key)
	case n.Critical:
		m.critical[key] = n
	}
}

// alerting says whether a critical notice is still out: its window still
// heads for its run-out (or is low or exhausted) and has not reset.
func (m *menu) alerting(s burn.Snapshot) bool {
	for key, n := range m.critical {
		over := true
		if p := s.Provider(n.Provider); p != nil {
			for _, w := range []*burn.WindowStatus{p.Window, p.Weekly} {
				if w == nil || windowName(w) != string(n.Window) {
					continue
				}
				state, _, _ := verdict(p, w)
				over = w.Reset || state == burn.OnTrack || state == burn.NoData ||
					(n.ResetsAt != nil && !s.At.Before(*n.ResetsAt))
				break
			}
		}
		if over {
			delete(m.critical, key)
		}
	}
	return len(m.critical) > 0
}

func (m *menu) render() {
	if m.last == nil {
		return
	}
	m.apply(render(*m.last, m.opts.Location, m.mode, m.opts.MaxSessionRows, m.alerting(*m.last)))
}

// labelGuide is the widest the label gets, for hosts that reserve its room.
const labelGuide = "weekly ~999m/h"

// apply shows a view, touching only what changed since the last one.
func (m *menu) apply(v view) {
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	if m.fresh || v.Icon != m.shown.Icon {
		m.face.setIcon(v.Icon)
	}
	if m.fresh || v.Title != m.shown.Title {
		m.face.setTitle(valid(v.Title))
	}
	if m.fresh || v.Tooltip != m.shown.Tooltip {
		m.face.setTooltip(valid(v.Tooltip))
	}
	if m.fresh || v.Label != m.shown.Label {
		m.face.setLabel(valid(v.Label))
	}
	m.fresh = false
	m.shown = v

	for i, rows := range m.groups {
		var g group
		if i < len(v.Groups) {
			g = v.Groups[i]
		}
		rows.header.set(g.Header)
		rows.runout.set(g.Runout)
		rows.weekly.set(g.Weekly)
		for j, r := range rows.sessions {
			label := ""
			if j < len(g.Sessions) {
				label = g.Sessions[j]
			}
			r.set(label)
		}
		rows.more.set(g.More)
		rows.elsewhere.set(g.Elsewhere)
	}
	m.warning.set(v.Warning)
}
