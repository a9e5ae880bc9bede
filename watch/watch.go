// Package watch is `runway watch`: the tray's content as a full-screen
// terminal view, for SSH, tmux and machines without a desktop. It renders
// the snapshots an Engine publishes; it reads nothing itself.
package watch

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/text"
)

// Options connect the view to its data and its terminal.
type Options struct {
	// History returns the account samples of a provider's window observed
	// since an instant, oldest first: the chart's line. Nil draws no line.
	History func(p burn.Provider, class burn.WindowClass, since time.Time) []burn.Sample
	// Config gives the thresholds the chart marks (low percent, the
	// burning-fast notice buckets).
	Config burn.Config
	// Location shows times; time.Local when nil.
	Location *time.Location
	// Colour draws the verdicts in the terminal's colours (off for NO_COLOR).
	Colour bool
	// Label is shown in the title, such as "demo".
	Label string
}

// Model is the view's state.
type Model struct {
	opts     Options
	st       styles
	snap     burn.Snapshot
	have     bool
	history  []burn.Sample // the selected provider's active window
	width    int
	height   int
	selected burn.Provider
	login    string // the selected provider's login, when it has several
	showIdle bool
	help     bool
}

// New is the view before the first snapshot, at 80×24.
func New(o Options) *Model {
	if o.Location == nil {
		o.Location = time.Local
	}
	if len(o.Config.BurningFast) == 0 {
		o.Config.BurningFast = burn.DefaultConfig().BurningFast
	}
	return &Model{opts: o, st: newStyles(o.Colour), width: 80, height: 24}
}

// Resize sets the terminal's size.
func (m *Model) Resize(w, h int) { m.width, m.height = w, h }

// Show takes a new snapshot, keeping the selected provider while it is listed.
func (m *Model) Show(s burn.Snapshot) {
	m.snap, m.have = s, true
	if m.current() == nil && len(s.Providers) > 0 {
		m.selected, m.login = s.Providers[0].Provider, s.Providers[0].Account
	}
	m.fetchHistory()
}

// Key takes a key by name ("q", "ctrl+c", "esc", "?", "s", "tab",
// "shift+tab"); false means quit.
func (m *Model) Key(k string) bool {
	switch k {
	case "q", "ctrl+c":
		return false
	case "esc":
		m.help = false
	case "?":
		m.help = !m.help
	case "s":
		m.showIdle = !m.showIdle
	case "tab", "shift+tab":
		m.cycle(k == "tab")
		m.fetchHistory()
	}
	return true
}

// cycle selects the next (or previous) provider.
func (m *Model) cycle(forward bool) {
	ps := m.snap.Providers
	if len(ps) == 0 {
		return
	}
	i := max(slices.IndexFunc(ps, m.isSelected), 0)
	if forward {
		i = (i + 1) % len(ps)
	} else {
		i = (i + len(ps) - 1) % len(ps)
	}
	m.selected, m.login = ps[i].Provider, ps[i].Account
}

// current is the selected provider's status (of the selected login when
// the provider has several); nil when the snapshot lists it no more.
func (m *Model) current() *burn.ProviderStatus {
	if i := slices.IndexFunc(m.snap.Providers, m.isSelected); i >= 0 {
		return &m.snap.Providers[i]
	}
	return nil
}

func (m *Model) isSelected(p burn.ProviderStatus) bool {
	return p.Provider == m.selected && p.Account == m.login
}

// fetchHistory asks for the samples the selected provider's chart draws.
func (m *Model) fetchHistory() {
	m.history = nil
	p := m.current()
	if p == nil || p.Window == nil || p.Window.ResetsAt == nil || m.opts.History == nil {
		return
	}
	since := p.Window.ResetsAt.Add(-windowLength(p.Window))
	m.history = m.opts.History(p.Provider, p.Window.Class, since)
	if p.AccountLabel != "" {
		// Several logins: the chart is this one's alone.
		m.history = slices.DeleteFunc(m.history, func(s burn.Sample) bool { return s.Account != p.Account })
	}
}

// windowLength is how long w lasts, its class's length when no source said.
func windowLength(w *burn.WindowStatus) time.Duration {
	minutes := w.Minutes
	if minutes <= 0 {
		minutes = w.Class.DefaultMinutes()
	}
	return time.Duration(minutes) * time.Minute
}

// View draws the screen: every line fits the width, and the whole the
// height, dropping the chart first and then session rows on a small one.
func (m *Model) View() string {
	w, h := max(m.width, 20), max(m.height, 3)
	var body []string
	switch {
	case !m.have:
		body = []string{"", "reading agent logs…"}
	case m.help:
		body = m.helpLines()
	case len(m.snap.Providers) == 0:
		body = []string{"", text.NoAgentData + ".",
			"runway reads Claude Code and Codex logs (~/.claude, ~/.codex);",
			"run `runway doctor` to see what it found, `runway watch --demo` to see",
			"what this view shows."}
	default:
		body = m.body(w, h-2)
	}
	lines := append([]string{m.header()}, body...)
	if len(lines) > h-1 {
		lines = lines[:h-1]
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines, m.footer())
	for i, l := range lines {
		lines[i] = truncate(l, w)
	}
	return strings.Join(lines, "\n")
}

func (m *Model) header() string {
	title := "runway watch"
	if m.opts.Label != "" {
		title += " · " + m.opts.Label
	}
	parts := []string{m.st.title.Render(title)}
	for _, p := range m.snap.Providers {
		// Brackets mark the selected provider without colour too.
		if m.isSelected(p) {
			parts = append(parts, m.st.selected.Render("["+p.Name()+"]"))
		} else {
			parts = append(parts, " "+p.Name()+" ")
		}
	}
	if m.have {
		parts = append(parts, m.st.dim.Render("as of "+m.snap.At.In(m.opts.Location).Format("15:04:05")))
	}
	return strings.Join(parts, " ")
}

func (m *Model) footer() string {
	k := m.st.key.Render
	idle := "show idle"
	if m.showIdle {
		idle = "hide idle"
	}
	return m.st.dim.Render(k("q") + " quit  " + k("tab") + " provider  " + k("s") + " " + idle + "  " + k("?") + " help")
}

func (m *Model) helpLines() []string {
	return []string{
		"",
		m.st.title.Render("keys"),
		"  q, ctrl+c   quit",
		"  tab         next provider (shift+tab: previous)",
		"  s           show or hide idle sessions",
		"  ?, esc      this help",
		"",
		m.st.title.Render("figures"),
		"  m/h         quota minutes per hour; ~ marks an estimate rather than a",
		"              measured velocity",
		"  ≤84         the pace that lasts to the reset: what is left over the time",
		"              to the reset (60 m/h only while the window opens)",
		"  ▸14:44      runs out then at this pace;  ☺ lasts to the reset;  ✖ exhausted",
		"  ?           not known to last (runway now --check says why)",
		"  chart       used % since the window opened, the projection from now",
		"              (dashed); dotted rows: 100 % and the low threshold (when it",
		"              has a text row of its own); ┬ when a notice fires if the",
		"              pace holds, ▲ the run-out, │ the reset",
		"  pause →     what pausing that session buys",
		"  elsewhere   burn no local session explains",
	}
}

// body is everything between the title and the keys, fitted to h rows.
func (m *Model) body(w, h int) []string {
	windows := m.windowRows(w)
	var warn []string
	if ws := m.snap.Warnings; len(ws) > 0 {
		// Warnings quote files: printable, so no escape of theirs reaches the terminal.
		text := "⚠ " + printable.String(ws[0])
		if len(ws) > 1 {
			text += fmt.Sprintf(" (+%d more: runway doctor)", len(ws)-1)
		}
		warn = []string{m.st.warn.Render(text)}
	}
	p := m.current()
	sessions := m.sessionRows(p, w)
	// The chart takes what is left, between a readable minimum and a
	// height past which it only stretches.
	const minPlot, maxPlot = 4, 40
	left := h - len(windows) - len(warn) - 2 // two blank separators
	plotRows := min(left-len(sessions)-3, maxPlot)
	var chart []string
	if plotRows >= minPlot {
		chart = m.chart(p, w, plotRows+2)
	}
	if len(chart) == 0 {
		// No chart: the sessions get the room, and say how many did not fit.
		room := max(left, 1)
		if len(sessions) > room {
			hidden := len(sessions) - room + 1
			sessions = append(sessions[:room-1], m.st.dim.Render(fmt.Sprintf("  +%d rows (a taller terminal shows them)", hidden)))
		}
	}
	out := append([]string{""}, windows...)
	out = append(out, chart...)
	out = append(out, "")
	out = append(out, sessions...)
	out = append(out, warn...)
	return out
}

// windowRows are one row per provider and window: used %, a bar, m/h,
// run-out and reset, coloured by the verdict.
func (m *Model) windowRows(w int) []string {
	// A narrow terminal loses the countdowns before the clock times.
	rows := m.windowCells(false)
	widths, total := columnWidths(rows)
	if total+4 > w {
		rows = m.windowCells(true)
		widths, total = columnWidths(rows)
	}
	barWidth := min(max(w-total-1, 4), 30)
	var out []string
	for _, r := range rows {
		vs := m.st.verdict(r.state)
		c := r.cells
		bar := strings.Repeat(" ", barWidth)
		if r.bar {
			bar = gauge(r.used, barWidth, vs, m.st.dim)
		}
		line := fmt.Sprintf("%-*s %-*s %s %s %s %s %s",
			widths[0], c[0], widths[1], c[1],
			vs.Render(padLeft(c[2], widths[2])), bar,
			padLeft(c[3], widths[3]),
			vs.Render(padRight(c[4], widths[4])), c[5])
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}

// windowRow is one window's cells: name, class, percent, rate, run-out
// and reset; the bar goes between percent and rate.
type windowRow struct {
	cells []string
	used  float64
	state burn.State
	bar   bool
}

// columnWidths are the widths of rows' columns, and of the rows without
// their bar.
func columnWidths(rows []windowRow) (widths [6]int, total int) {
	for _, r := range rows {
		for i, c := range r.cells {
			widths[i] = max(widths[i], width(c))
		}
	}
	for _, w := range widths {
		total += w + 1
	}
	return widths, total
}

// windowCells are the rows of every provider's windows; compact ones
// leave out the countdowns.
func (m *Model) windowCells(compact bool) []windowRow {
	var rows []windowRow
	at, loc, unproven := m.snap.At, m.opts.Location, m.snap.Unproven()
	for _, p := range m.snap.Providers {
		name := p.Name()
		if p.Window == nil {
			rows = append(rows, windowRow{cells: []string{name, "", "", "", "no account data yet", ""}, state: burn.NoData})
			continue
		}
		for _, win := range p.Windows() {
			r := windowRow{state: shownState(win, unproven), used: win.UsedPercent}
			r.cells = []string{name, string(win.Class)}
			name = ""
			switch {
			case win.Reset:
				r.cells = append(r.cells, "", "", "has reset: no sample of the new window yet", "")
			case win.State == burn.NoData:
				r.cells = append(r.cells, "", "", "no data", "")
			default:
				r.bar = true
				pct := text.Percent(win.UsedPercent)
				r.cells = append(r.cells, pct, rateCell(win), runoutCell(win, at, loc, compact, unproven), resetCell(win, at, loc, compact))
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// gauge is a bar of used percent: full blocks, an eighth-step end, and the
// rest faint.
func gauge(used float64, width int, on, off style) string {
	eighths := int(min(max(used, 0), 100) / 100 * float64(width*8))
	full, part := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	rest := width - full
	if part > 0 && rest > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[part-1])
		rest--
	}
	return on.Render(s) + off.Render(strings.Repeat("░", rest))
}

// rateCell is a window's burn with its marker, as on every surface, and the
// pace that lasts to the reset: "108m/h ≤84", "~17m/h ≤206".
func rateCell(w *burn.WindowStatus) string {
	s := text.Burn(w.Burn)
	if s != "" && w.Burn.SustainableQuotaMinutesPerHour > 0 {
		s += " ≤" + text.Rate(w.Burn.SustainableQuotaMinutesPerHour)
	}
	return s
}

// runoutCell is the verdict: "▸14:44 in 1h09m", "☺ lasts", "✖ exhausted",
// "?" where the gate cannot tell (unproven), with the sample's age when it
// is not fresh.
func runoutCell(w *burn.WindowStatus, now time.Time, loc *time.Location, compact, unproven bool) string {
	var s string
	switch {
	case w.State == burn.Exhausted:
		s = "✖ exhausted"
	case w.RunoutAt != nil:
		s = "▸" + text.Clock(*w.RunoutAt, now, loc)
		if !compact {
			s += " in " + text.Span(w.RunoutAt.Sub(now))
		}
		if w.State == burn.Low {
			s = "low " + s
		}
	case w.Unproven():
		s = "? rising faster"
	case unproven && (w.State == burn.Low || w.State == burn.OnTrack):
		s = "? not known to last"
	case w.State == burn.Low:
		s = "low ☺ lasts"
	case w.State == burn.OnTrack:
		s = "☺ lasts"
	}
	if !w.Fresh {
		s += " (" + text.Span(now.Sub(w.ObservedAt)) + " old)"
	}
	return s
}

// resetCell is "reset 15:05 in 1h30m" ("by" when it is the latest the
// window can reset, no source having said).
func resetCell(w *burn.WindowStatus, now time.Time, loc *time.Location, compact bool) string {
	if w.ResetsAt == nil {
		return ""
	}
	word := "reset "
	if w.ResetsAtEstimated {
		word = "reset by "
	}
	s := word + text.Clock(*w.ResetsAt, now, loc)
	if !compact {
		s += " in " + text.Span(w.ResetsAt.Sub(now))
	}
	return s
}

// chart is the selected provider's active window drawn over height rows:
// a title, the plot, its axis and labels.
func (m *Model) chart(p *burn.ProviderStatus, w, height int) []string {
	if p == nil {
		return nil
	}
	win := p.Window
	if win == nil {
		return []string{"", m.st.title.Render(p.Name()) + " " + m.st.dim.Render("no account data yet: runway doctor says which source is missing")}
	}
	title := m.st.title.Render(p.Name()+" "+string(win.Class)) + " " + m.verdictText(p)
	pl, why := newPlot(win, m.history, m.snap.At, m.opts.Config)
	if why != "" {
		return []string{"", title, m.st.dim.Render("  " + why)}
	}
	st := m.st
	st.projection = st.verdict(shownState(win, m.snap.Unproven()))
	return append([]string{"", title}, pl.render(w, height-1, st, m.opts.Location)...)
}

// verdictText is the active window's burn against the pace that lasts and
// where it is heading, in its colour and in every surface's words.
func (m *Model) verdictText(p *burn.ProviderStatus) string {
	w, unproven := p.Window, m.snap.Unproven()
	out := text.Outcome(w, m.snap.At, m.opts.Location, unproven)
	switch {
	case out == "":
		return m.st.dim.Render("no data")
	case w.State != burn.Exhausted:
		out = text.BurnLasting(w.Burn) + " · " + out
	}
	if w.Unproven() || unproven && p.State == burn.OnTrack {
		return m.st.dim.Render(out)
	}
	return m.st.verdict(p.State).Render(out)
}

// sessionRows rank p's sessions by m/h with their token rate, share, state
// and pause impact, then the elsewhere row, fitted to w columns.
func (m *Model) sessionRows(p *burn.ProviderStatus, w int) []string {
	if p == nil {
		return nil
	}
	all := m.snap.SessionsOfStatus(*p)
	names := text.SessionNames(all)
	head := sessionCells{c: [6]string{"sessions", "m/h", "tok/s", "share", "state", "pause →"}}
	var rows []sessionCells
	idle := 0
	total := p.Burn.QuotaMinutesPerHour
	for i, ss := range all {
		if ss.RateKind == burn.Idle && !m.showIdle {
			idle++
			continue
		}
		rows = append(rows, sessionRow(ss, names[i], total))
	}
	if p.ElsewhereQuotaMinutesPerHour >= 0.1 {
		share := ""
		if total > 0 {
			share = fmt.Sprintf("%.0f%%", 100*p.ElsewhereQuotaMinutesPerHour/total)
		}
		// Its words span the state and pause columns.
		rows = append(rows, sessionCells{c: [6]string{"elsewhere", text.Rate(p.ElsewhereQuotaMinutesPerHour), "", share, "no local session", ""}, span: true})
	}
	l := sessionLayout(append([]sessionCells{head}, rows...), w)
	out := []string{m.st.title.Render(l.format(head))}
	for _, r := range rows {
		out = append(out, l.format(r))
	}
	switch {
	case len(all) == 0:
		out = append(out, m.st.dim.Render("  no session of "+p.Name()+" inside the window"))
	case idle > 0:
		word := "sessions"
		if idle == 1 {
			word = "session"
		}
		out = append(out, m.st.dim.Render(fmt.Sprintf("  +%d idle %s (s shows them)", idle, word)))
	}
	return out
}

// sessionCells are one session row's cells: name, m/h, tok/s, share,
// state, pause impact; span runs the state cell on over the pause column.
type sessionCells struct {
	c    [6]string
	span bool
}

// sessionRow is one session's cells.
func sessionRow(ss burn.SessionStatus, name string, total float64) sessionCells {
	if ss.Agents > 0 {
		name += fmt.Sprintf(" +%d agent", ss.Agents)
		if ss.Agents > 1 {
			name += "s"
		}
	}
	rate, tok, share := "—", "", ""
	switch {
	case ss.RateKind == burn.Idle:
	case ss.RateKind == burn.Waiting:
		// Its fading share while it waits: a figure, not a measured one.
		if ss.QuotaMinutesPerHour > 0 {
			rate = "~" + text.Rate(ss.QuotaMinutesPerHour)
		}
	default:
		if ss.QuotaMinutesPerHour > 0 {
			rate = text.Rate(ss.QuotaMinutesPerHour)
		}
		tok = fmt.Sprintf("%.0f", ss.TokensPerS)
	}
	if total > 0 && ss.QuotaMinutesPerHour > 0 {
		share = fmt.Sprintf("%.0f%%", 100*ss.QuotaMinutesPerHour/total)
	}
	return sessionCells{c: [6]string{name, rate, tok, share, string(ss.RateKind), text.Pause(ss)}}
}

// sessionColumns are the widths of the session table's columns; a
// column of width -1 is left out.
type sessionColumns [6]int

// maxNameWidth is the widest the name column gets on a wide terminal.
const maxNameWidth = 24

// sessionLayout fits the table to w columns, names first: it tightens the
// figures, drops the state words (~ marks waiting), the pause column, then cuts names.
func sessionLayout(rows []sessionCells, w int) sessionColumns {
	widest := func(i int) int {
		n := 0
		for _, r := range rows {
			if !r.span || i < 4 {
				n = max(n, width(r.c[i]))
			}
		}
		return n
	}
	// The wide layout: fixed figure columns, names as wide as the terminal
	// gives up to maxNameWidth.
	wide := sessionColumns{min(max(w-56, 10), maxNameWidth), 7, 7, 6, 11, 0}
	if (widest(0) <= wide[0] || wide[0] == maxNameWidth) && wide.width(rows) <= w {
		return wide
	}
	name := min(widest(0), maxNameWidth)
	tight := sessionColumns{name, widest(1), widest(2), widest(3), widest(4), 0}
	noState := tight
	noState[4] = -1
	noPause := noState
	noPause[5] = -1
	for _, l := range []sessionColumns{tight, noState, noPause} {
		if l.width(rows) <= w {
			return l
		}
	}
	// Names are cut last, to what is left (never under 8 columns).
	noPause[0] = max(name-(noPause.width(rows)-w), 8)
	return noPause
}

// width is how wide rows are in layout c.
func (c sessionColumns) width(rows []sessionCells) int {
	n := 0
	for _, r := range rows {
		n = max(n, width(c.format(r)))
	}
	return n
}

// format lays one row out in c, cutting a name too long for its column.
func (c sessionColumns) format(cells sessionCells) string {
	r := cells.c
	name := r[0]
	if k := []rune(name); len(k) > c[0] {
		name = string(k[:c[0]-1]) + "…"
	}
	s := fmt.Sprintf("  %-*s %*s %*s %*s", c[0], name, c[1], r[1], c[2], r[2], c[3], r[3])
	switch {
	case cells.span && (c[4] >= 0 || c[5] >= 0):
		s += "  " + r[4]
	case c[4] >= 0 && c[5] >= 0:
		s += fmt.Sprintf("  %-*s %s", c[4], r[4], r[5])
	case c[4] >= 0:
		s += "  " + r[4]
	case c[5] >= 0:
		s += "  " + r[5]
	}
	return strings.TrimRight(s, " ")
}

func padRight(s string, n int) string {
	if k := width(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}
