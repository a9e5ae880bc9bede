package watch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrunway/runway/burn"
)

// style is the SGR parameters of one colour, "" for none. The ANSI base
// colours follow the terminal's theme and pass through tmux and SSH.
type style string

// Render wraps s in the style; a plain style or an empty s stays as is.
func (st style) Render(s string) string {
	if st == "" || s == "" {
		return s
	}
	return "\x1b[" + string(st) + "m" + s + "\x1b[0m"
}

// styles are the view's colours. Without colour (NO_COLOR) every style is
// plain and the words and marks (☺ ▸ ✖, "runs out", "low") carry the verdict.
type styles struct {
	onTrack, runout, low, exhausted, dim style
	title, selected, key, warn           style
	history, projection, full, reset     style
}

func newStyles(colour bool) styles {
	if !colour {
		return styles{}
	}
	return styles{
		onTrack: "32", runout: "33", low: "31", exhausted: "1;31", dim: "2",
		title: "1", selected: "1;7", key: "1", warn: "33",
		history: "36", projection: "33", full: "2;31", reset: "34",
	}
}

// verdict is the colour of a window's state: green on track, amber run-out
// before the reset, red low or exhausted.
func (st styles) verdict(s burn.State) style {
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
// lasts only at a burn its ticks prove too slow, or where the gate cannot
// tell (unproven), as green would say it lasts.
func shownState(w *burn.WindowStatus, unproven bool) burn.State {
	if w.Unproven() || unproven && w.State == burn.OnTrack {
		return burn.NoData
	}
	return w.State
}

// width is how many terminal cells s takes, its escapes taking none.
func width(s string) int {
	n := 0
	forCells(s, func(_ string, w int) { n += w })
	return n
}

// truncate cuts s to w cells, ending it with "…" when cut; escapes are kept
// so that a colour cut short is still reset.
func truncate(s string, w int) string {
	if width(s) <= w {
		return s
	}
	var b strings.Builder
	room, cut := w-1, false
	forCells(s, func(part string, cw int) {
		if !cut && cw > room {
			cut = true
			b.WriteString("…")
		}
		if !cut || part[0] == 0x1b {
			b.WriteString(part)
			room -= cw
		}
	})
	return b.String()
}

// forCells calls f with each escape sequence of s (width 0) and each rune
// with its width.
func forCells(s string, f func(part string, w int)) {
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "\x1b[") {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			j = min(j+1, len(s))
			f(s[i:j], 0)
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		f(s[i:i+n], runeWidth(r))
		i += n
	}
}

// runeWidth is a rune's cells: none for marks and controls, two for the
// East Asian wide and fullwidth blocks and emoji.
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Cc):
		return 0
	case r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf && r != 0x303f ||
		r >= 0xac00 && r <= 0xd7a3 || r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f ||
		r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6 || r >= 0x1f300 && r <= 0x1f64f ||
		r >= 0x1f900 && r <= 0x1f9ff || r >= 0x20000 && r <= 0x3fffd):
		return 2
	}
	return 1
}
