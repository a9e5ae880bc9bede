package tray

// glyphs is a 3×5 pixel font for the icon's figure, a row three bits (the
// leftmost pixel highest): scaled by whole pixels it stays sharp at 16 px.
var glyphs = map[rune][5]uint8{
	'0': {0b111, 0b101, 0b101, 0b101, 0b111},
	'1': {0b010, 0b110, 0b010, 0b010, 0b111},
	'2': {0b111, 0b001, 0b111, 0b100, 0b111},
	'3': {0b111, 0b001, 0b111, 0b001, 0b111},
	'4': {0b101, 0b101, 0b111, 0b001, 0b001},
	'5': {0b111, 0b100, 0b111, 0b001, 0b111},
	'6': {0b111, 0b100, 0b111, 0b101, 0b111},
	'7': {0b111, 0b001, 0b001, 0b010, 0b010},
	'8': {0b111, 0b101, 0b111, 0b101, 0b111},
	'9': {0b111, 0b101, 0b111, 0b001, 0b111},
	'%': {0b101, 0b001, 0b010, 0b100, 0b101},
	'-': {0b000, 0b000, 0b111, 0b000, 0b000},
	'?': {0b111, 0b001, 0b011, 0b000, 0b010},
}

const glyphW, glyphH = 3, 5

// textLayout is how a text is drawn in a box: its glyphs scaled by sx×sy
// whole pixels, with one scaled column between glyphs.
type textLayout struct {
	text   []rune
	sx, sy int
}

func (l textLayout) width() int {
	n := len(l.text)
	if n == 0 {
		return 0
	}
	return (n*glyphW + n - 1) * l.sx
}

func (l textLayout) height() int { return glyphH * l.sy }

// fitText scales text to the largest whole-pixel glyphs that fit w×h, up to
// twice as tall as wide (tall digits read better); when none fits, a trailing
// "%" goes (the tooltip has it).
func fitText(text string, w, h int) (textLayout, bool) {
	rs := []rune(text)
	for {
		l := textLayout{text: rs}
		n := len(rs)
		if n > 0 {
			l.sx = w / (n*glyphW + n - 1)
		}
		l.sy = min(h/glyphH, 2*l.sx)
		l.sx = min(l.sx, l.sy)
		if l.sx >= 1 && l.sy >= 1 {
			return l, true
		}
		if n > 1 && rs[n-1] == '%' {
			rs = rs[:n-1]
			continue
		}
		return textLayout{}, false
	}
}

// each calls dot for every pixel of the text with its top left at (x0, y0).
func (l textLayout) each(x0, y0 int, dot func(x, y int)) {
	for i, r := range l.text {
		g, ok := glyphs[r]
		if !ok {
			g = glyphs['?']
		}
		gx := x0 + i*(glyphW+1)*l.sx
		for row := range glyphH {
			for col := range glyphW {
				if g[row]&(1<<(glyphW-1-col)) == 0 {
					continue
				}
				for dy := range l.sy {
					for dx := range l.sx {
						dot(gx+col*l.sx+dx, y0+row*l.sy+dy)
					}
				}
			}
		}
	}
}
