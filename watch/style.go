package watch

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/agentrunway/runway/burn"
)

// styles are the view's colours. The ANSI base colours follow the
// terminal's own theme and pass through tmux and SSH unchanged; with
// NO_COLOR (or no colour support) the renderer drops them and the words
// and marks (☺ ▸ ✖, "runs out", "low") carry the verdict alone.
type styles struct {
	onTrack, runout, low, exhausted, dim lipgloss.Style
	title, selected, key, warn           lipgloss.Style
	// the chart
	history, projection, full, reset, axis lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	s := func() lipgloss.Style { return r.NewStyle() }
	return styles{
		onTrack:   s().Foreground(lipgloss.Color("2")),
		runout:    s().Foreground(lipgloss.Color("3")),
		low:       s().Foreground(lipgloss.Color("1")),
		exhausted: s().Foreground(lipgloss.Color("1")).Bold(true),
		dim:       s().Faint(true),
		title:     s().Bold(true),
		selected:  s().Bold(true).Reverse(true),
		key:       s().Bold(true),
		warn:      s().Foreground(lipgloss.Color("3")),

		history:    s().Foreground(lipgloss.Color("6")),
		projection: s().Foreground(lipgloss.Color("3")),
		full:       s().Foreground(lipgloss.Color("1")).Faint(true),
		reset:      s().Foreground(lipgloss.Color("4")),
		axis:       s().Faint(true),
	}
}

// verdict is the colour of a window's state: green on track, amber run-out
// before the reset, red low or exhausted.
func (st styles) verdict(s burn.State) lipgloss.Style {
	switch s {
	case burn.OnTrack:
		return st.onTrack
	case burn.RunoutBeforeReset:
		return st.runout
	case burn.Low:
		return st.low
	case burn.Exhausted:
		return st.exhausted
	}
	return st.dim
}

// shownState is the state a window's colour says: none (dim) for one that
// lasts only at a burn its ticks prove too slow (burn.WindowStatus.Unproven):
// green would say it lasts.
func shownState(w *burn.WindowStatus) burn.State {
	if w.Unproven() {
		return burn.NoData
	}
	return w.State
}

// forChart is st with the projection in the window's verdict colour.
func (st styles) forChart(s burn.State) styles {
	st.projection = st.verdict(s)
	if s == burn.NoData {
		st.projection = st.dim
	}
	return st
}
