package watch

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

// plot is one window's chart since it opened, with the projection from now,
// in braille cells (2×4 dots each) so that a change of pace shows as a bend.
type plot struct {
	start, reset, now time.Time
	history           []burn.Sample // this window instance's samples, oldest first
	// The projection runs from (now, from) to (to, toPct): to 100 % at the
	// run-out, or to the reset when the window lasts.
	from, toPct float64
	to          time.Time
	runout      *time.Time
	low         float64     // the used percent at which the window is low
	notices     []time.Time // when the burning-fast notices fire if the pace holds
}

// newPlot lays out w's chart at now, or says why there is none.
func newPlot(w *burn.WindowStatus, history []burn.Sample, now time.Time, cfg burn.Config) (plot, string) {
	switch {
	case w == nil || w.State == burn.NoData && !w.Reset:
		return plot{}, "no sample of this window yet: nothing to draw"
	case w.ResetsAt == nil:
		return plot{}, "no source said when this window resets: nothing to draw"
	}
	length := windowLength(w)
	p := plot{
		reset: *w.ResetsAt,
		start: w.ResetsAt.Add(-length),
		now:   now,
		low:   100 - cfg.LowPercent,
	}
	if w.Reset {
		// The chart would be of the window that ended: show the new one empty.
		p.start, p.reset = *w.ResetsAt, w.ResetsAt.Add(length)
	}
	p.history = instance(history, p.start, p.reset, now)
	p.from, p.to, p.toPct = projection(w, now)
	if w.RunoutAt != nil {
		p.runout = w.RunoutAt
		for _, m := range cfg.BurningFast {
			if at := w.RunoutAt.Add(-time.Duration(m) * time.Minute); at.After(now) {
				p.notices = append(p.notices, at)
			}
		}
	}
	return p, ""
}

// projection is where the window's line goes from now: to 100 % at the
// run-out `runway now` gives, or to its reset when the window lasts.
func projection(w *burn.WindowStatus, now time.Time) (from float64, to time.Time, toPct float64) {
	pps := w.Burn.PercentPerS
	switch {
	case w.Reset:
		return 0, now, 0
	case w.State == burn.Exhausted || w.UsedPercent >= 100:
		return 100, *w.ResetsAt, 100
	case w.RunoutAt != nil:
		from = 100 - pps*w.RunoutAt.Sub(now).Seconds()
		return max(from, 0), *w.RunoutAt, 100
	}
	from = w.UsedPercent
	if w.ResetsAt.After(now) {
		return from, *w.ResetsAt, min(from+pps*w.ResetsAt.Sub(now).Seconds(), 100)
	}
	return from, now, from
}

// instance keeps the samples of the window instance [start, reset] observed
// up to now, in time order: those from before a reset are another instance's.
func instance(history []burn.Sample, start, reset, now time.Time) []burn.Sample {
	var out []burn.Sample
	for _, s := range history {
		if s.ObservedAt.Before(start) || s.ObservedAt.After(now) {
			continue
		}
		// Sources' resets jitter by up to two minutes; another instance's
		// is hours away.
		if d := s.ResetsAt.Sub(reset); !s.ResetsAt.IsZero() && (d > 10*time.Minute || d < -10*time.Minute) {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b burn.Sample) int { return a.ObservedAt.Compare(b.ObservedAt) })
	return out
}

// canvas is the plot's braille dots, one grid per layer so each keeps its
// colour.
type canvas struct {
	w, h                  int
	dots, proj, full, low [][]uint8
}

func newCanvas(w, h int) *canvas {
	c := &canvas{w: w, h: h}
	for range h {
		c.dots = append(c.dots, make([]uint8, w))
		c.proj = append(c.proj, make([]uint8, w))
		c.full = append(c.full, make([]uint8, w))
		c.low = append(c.low, make([]uint8, w))
	}
	return c
}

// brailleBit is the bit of dot (dx, dy) in a braille cell.
var brailleBit = [2][4]uint8{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}

func (c *canvas) set(grid [][]uint8, x, y int) {
	if x < 0 || y < 0 || x >= 2*c.w || y >= 4*c.h {
		return
	}
	grid[y/4][x/2] |= brailleBit[x%2][y%4]
}

// line draws from (x0, y0) to (x1, y1) in dots (Bresenham's); dashed
// leaves every third dot out.
func (c *canvas) line(grid [][]uint8, x0, y0, x1, y1 int, dashed bool) {
	dx, sx := x1-x0, 1
	if dx < 0 {
		dx, sx = -dx, -1
	}
	dy, sy := y0-y1, 1 // minus the distance
	if y1 < y0 {
		dy, sy = y1-y0, -1
	}
	err := dx + dy
	for n := 0; ; n++ {
		if !dashed || n%3 != 2 {
			c.set(grid, x0, y0)
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * err
		if e2 >= dy {
			err += dy
			x0 += sx
		}
		if e2 <= dx {
			err += dx
			y0 += sy
		}
	}
}

// xDot is the dot column of instant t; yDot the dot row of a percent (0 at
// the top, 100 %).
func (p plot) xDot(t time.Time, w int) int {
	span := p.reset.Sub(p.start).Seconds()
	if span <= 0 {
		return 0
	}
	f := t.Sub(p.start).Seconds() / span
	return int(math.Round(math.Max(0, math.Min(1, f)) * float64(2*w-1)))
}

func yDot(pct float64, h int) int {
	f := math.Max(0, math.Min(100, pct)) / 100
	return int(math.Round((1 - f) * float64(4*h-1)))
}

// Column is the character column of the plot where t falls, for a plot
// w characters wide.
func (p plot) column(t time.Time, w int) int { return p.xDot(t, w) / 2 }

// rowOf is the character row where percent pct is drawn.
func rowOf(pct float64, h int) int { return yDot(pct, h) / 4 }

// draw lays the plot's layers out on a w×h canvas: the reference rows,
// the history and the projection.
func (p plot) draw(w, h int) *canvas {
	c := newCanvas(w, h)
	// Thresholds as dotted dot rows. The low one goes when it would share
	// 100 %'s text row: the two rows and the projection made one smear.
	dotted := func(grid [][]uint8, pct float64) {
		for x := 0; x < 2*w; x += 4 {
			c.set(grid, x, yDot(pct, h))
		}
	}
	dotted(c.full, 100)
	if p.low > 0 && p.low < 100 && rowOf(p.low, h) != rowOf(100, h) {
		dotted(c.low, p.low)
	}
	// The history as a line through its samples, oldest first: a window's
	// percent only climbs, so each dot column takes its highest sample.
	var xs, ys []int
	var top float64
	for _, s := range p.history {
		x := p.xDot(s.ObservedAt, w)
		if n := len(xs); n > 0 && xs[n-1] == x {
			top = max(top, s.UsedPercent)
			ys[n-1] = yDot(top, h)
			continue
		}
		top = s.UsedPercent
		xs, ys = append(xs, x), append(ys, yDot(top, h))
	}
	for i := range xs {
		if i == 0 {
			c.set(c.dots, xs[0], ys[0])
		} else {
			c.line(c.dots, xs[i-1], ys[i-1], xs[i], ys[i], false)
		}
	}
	if p.to.After(p.now) || p.toPct != p.from {
		c.line(c.proj, p.xDot(p.now, w), yDot(p.from, h), p.xDot(p.to, w), yDot(p.toPct, h), true)
	}
	if p.runout != nil && p.to.Before(p.reset) {
		// Dry from the run-out to the reset.
		c.line(c.proj, p.xDot(p.to, w), yDot(100, h), p.xDot(p.reset, w), yDot(100, h), false)
	}
	return c
}

// The layers of a chart cell, the first that has a dot showing.
const (
	layerNone = iota
	layerHistory
	layerProjection
	layerLow
	layerFull
)

// cell is what text cell (r, x) shows and in which layer's colour: the line
// (history and projection joined), else one reference row, never both mixed.
func (c *canvas) cell(r, x int) (uint8, int) {
	d, q := c.dots[r][x], c.proj[r][x]
	switch {
	case d != 0:
		return d | q, layerHistory
	case q != 0:
		return q, layerProjection
	case c.low[r][x] != 0:
		return c.low[r][x], layerLow
	case c.full[r][x] != 0:
		return c.full[r][x], layerFull
	}
	return 0, layerNone
}

// yLabelWidth is the width of the percent labels and the axis left of the
// plot: "100% ┤".
const yLabelWidth = 6

// render draws the plot into width×height characters, labels and axis
// included: height-2 rows of plot, an axis and a row of time labels.
func (p plot) render(width, height int, st styles, loc *time.Location) []string {
	w, h := width-yLabelWidth-1, height-2 // the right edge is the reset
	if w < 8 || h < 2 {
		return nil
	}
	c := p.draw(w, h)
	layerStyle := [...]style{layerHistory: st.history, layerProjection: st.projection, layerLow: st.low, layerFull: st.full}
	rowLabel := map[int]string{}
	for _, l := range []struct {
		pct   float64
		label string
	}{{100, "100%"}, {p.low, text.Percent(p.low)}, {50, "50%"}, {0, "0%"}} {
		if l.pct < 0 || l.pct > 100 {
			continue
		}
		if _, taken := rowLabel[rowOf(l.pct, h)]; !taken {
			rowLabel[rowOf(l.pct, h)] = l.label
		}
	}
	var out []string
	for r := range h {
		var b strings.Builder
		b.WriteString(st.dim.Render(padLeft(rowLabel[r], yLabelWidth-2) + " ┤"))
		for x := range w {
			bits, l := c.cell(r, x)
			if l == layerNone {
				b.WriteByte(' ')
			} else {
				b.WriteString(layerStyle[l].Render(string(rune(0x2800 + int(bits)))))
			}
		}
		// The right edge is the reset.
		b.WriteString(st.reset.Render("│"))
		out = append(out, b.String())
	}
	out = append(out, p.axis(w, st), p.labels(w, st, loc))
	return out
}

// axis is the time axis: ticks at now, at the notices still to come, and
// the run-out.
func (p plot) axis(w int, st styles) string {
	row := []rune(strings.Repeat("─", w))
	for _, n := range p.notices {
		row[p.column(n, w)] = '┬'
	}
	if p.runout != nil {
		row[p.column(*p.runout, w)] = '▲'
	}
	row[p.column(p.now, w)] = '┴'
	return st.dim.Render(strings.Repeat(" ", yLabelWidth-2)+" └") + st.dim.Render(string(row)) + st.reset.Render("┘")
}

// labels names the axis (opened, now, run-out, reset), each at its column
// unless it would run into another: the window rows give every time in full.
func (p plot) labels(w int, st styles, loc *time.Location) string {
	width := w + yLabelWidth + 1
	row := []rune(strings.Repeat(" ", width))
	taken := make([]bool, width)
	// put writes text starting (or, right, ending) at plot column col.
	put := func(col int, text string, right bool) bool {
		r := []rune(text)
		at := col + yLabelWidth
		if right {
			at -= len(r) - 1
		}
		if at < 0 || at+len(r) > width {
			return false
		}
		for i := -1; i <= len(r); i++ {
			if k := at + i; k >= 0 && k < width && taken[k] {
				return false
			}
		}
		for i, c := range r {
			row[at+i], taken[at+i] = c, true
		}
		return true
	}
	put(p.column(p.now, w), "now", false)
	// The run-out and the reset are often close: the first arrangement
	// that fits wins, the run-out alone last (the edge marks the reset).
	reset := text.Clock(p.reset, p.now, loc)
	type label struct {
		col   int
		text  string
		right bool
	}
	var tries [][]label
	for _, r := range []label{{w, "reset " + reset, true}, {w, reset, true}} {
		tries = append(tries, []label{r})
	}
	if p.runout != nil {
		at, col := text.Clock(*p.runout, p.now, loc), p.column(*p.runout, w)
		left, right := label{col, "▲" + at, false}, label{col, at + "▲", true}
		tries = [][]label{{tries[0][0], left}, {tries[0][0], right}, {tries[1][0], left}, {tries[1][0], right}, {left}, {right}}
	}
	saved, savedTaken := slices.Clone(row), slices.Clone(taken)
	for _, try := range tries {
		copy(row, saved)
		copy(taken, savedTaken)
		if !slices.ContainsFunc(try, func(l label) bool { return !put(l.col, l.text, l.right) }) {
			break
		}
	}
	put(0, text.Clock(p.start, p.now, loc), false)
	return st.dim.Render(strings.TrimRight(string(row), " "))
}

func padLeft(s string, n int) string {
	if k := len([]rune(s)); k < n {
		return strings.Repeat(" ", n-k) + s
	}
	return s
}
