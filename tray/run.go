//go:build linux || freebsd || openbsd || netbsd || windows || (darwin && cgo)

package tray

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/systray"

	"github.com/agentrunway/runway/burn"
)

// started guards systray, which keeps its state in globals and can run once
// per process.
var started atomic.Bool

// Run shows the tray and renders every snapshot until ctx ends or Quit is
// clicked (nil either way). The sender keeps only the newest snapshot
// waiting, so a burst is rendered once. Without a tray host it returns ErrNoTrayHost at
// once: systray would wait forever for a bus that is not there. Call it
// once per process, from the main goroutine (macOS loops there).
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

// menu is the tray's state; the last snapshot is rendered again when a
// setting changes.
type menu struct {
	opts    Options
	face    face
	groups  [][]*row // each provider's rows, as group.rows lists them
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
	// critical notices out, by window: the icon is red while they hold.
	critical map[string]burn.Notice
}

// newMenu creates every item once: systray can hide and relabel items
// cheaply but not rebuild a menu.
func newMenu(opts Options) *menu {
	m := &menu{opts: opts, mode: opts.SessionListMode, notify: opts.Notifications, fresh: true, critical: map[string]burn.Notice{}}
	for range maxProviders {
		g := make([]*row, len(group{}.rows(opts.MaxSessionRows)))
		for i := range g {
			g[i] = newRow()
		}
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
	m.quit = systray.AddMenuItem("Quit", "Quit "+appName)
	return m
}

// loop renders snapshots and answers clicks until ctx ends or Quit is
// clicked.
func (m *menu) loop(ctx context.Context, snapshots <-chan burn.Snapshot, notices <-chan burn.Notice) {
	clicks := make(chan *systray.MenuItem, 8)
	stop := make(chan struct{})
	defer close(stop)
	for _, item := range append([]*systray.MenuItem{m.copyLine, m.notifications, m.doctor, m.quit}, slices.Collect(maps.Values(m.modes))...) {
		go forwardClicks(item, clicks, stop)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-snapshots:
			if !ok {
				snapshots = nil
				continue
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
		case item := <-clicks:
			if item == m.quit {
				return
			}
			m.click(item)
		}
	}
}

// forwardClicks waits on an item's channel on its own, because systray
// drops a click when nobody is receiving at that instant.
func forwardClicks(item *systray.MenuItem, clicks chan<- *systray.MenuItem, stop <-chan struct{}) {
	for {
		select {
		case <-item.ClickedCh:
		case <-stop:
			return
		}
		select {
		case clicks <- item:
		case <-stop:
			return
		}
	}
}

func (m *menu) click(item *systray.MenuItem) {
	switch item {
	// The engine's text may take a while (doctor probes sources): the menu
	// keeps answering meanwhile.
	case m.copyLine:
		if f := m.opts.StatusLine; f != nil {
			go func() { m.notes <- copyLine(m.opts, f()) }()
		}
	case m.doctor:
		if f := m.opts.Doctor; f != nil {
			go func() { m.notes <- showDoctor(m.opts, f()) }()
		}
	case m.notifications:
		m.notify = !m.notify
		if m.notify {
			m.notifications.Check()
		} else {
			m.notifications.Uncheck()
		}
		if m.opts.OnNotificationsToggle != nil {
			m.opts.OnNotificationsToggle(m.notify)
		}
		on := m.notify
		m.save(&on, "")
	default:
		m.pickMode(item)
	}
}

// pickMode checks the session list mode whose item was clicked.
func (m *menu) pickMode(clicked *systray.MenuItem) {
	mode := m.mode
	for name, item := range m.modes {
		if item == clicked {
			mode = name
			item.Check()
		} else {
			item.Uncheck()
		}
	}
	if mode != m.mode {
		m.mode = mode
		m.save(nil, mode)
		m.render()
	}
}

// save keeps a choice for the next start; failing that, it says so.
func (m *menu) save(notifications *bool, sessionList string) {
	if err := m.opts.Choices.pick(notifications, sessionList, time.Now()); err != nil {
		m.opts.Logf("%v", err)
	}
}

// noticeOut records a notice delivered to the desktop: a critical one
// keeps the icon red, a reset clears its window's.
func (m *menu) noticeOut(n burn.Notice) {
	key := windowKey(n)
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
		if p := s.ProviderOf(n.Provider, n.Account); p != nil {
			for _, w := range p.Windows() {
				if windowName(w) != string(n.Window) {
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
		for j, label := range g.rows(m.opts.MaxSessionRows) {
			rows[j].set(label)
		}
	}
	m.warning.set(v.Warning)
}
