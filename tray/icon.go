package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// iconSizes are the sides the icon is drawn at, each for its own size so
// the figure stays sharp: Windows and small panels, GNOME/KDE/XFCE, HiDPI.
var iconSizes = []int{16, 22, 24, 32}

// tone is the icon's colour: what the figure means for the user.
type tone int

const (
	toneNone  tone = iota // grey: no verdict (no account figure yet, or a burn catching up with a faster pace)
	toneOK                // green: lasts to the reset
	toneWarn              // amber: runs out before the reset
	toneAlert             // red: low, exhausted, run-out within 10 minutes or a critical notice out
)

func (t tone) String() string {
	return [...]string{"none", "ok", "warn", "alert"}[t]
}

// iconKey is everything an icon depends on: Windows leaves a temp file per
// distinct icon, so nothing else may vary.
type iconKey struct {
	Tone tone
	Text string // the figure: "38" m/h, "42%"; "" draws a dash
	Step int    // used percent of the window shown, rounded to 5
}

// stepOf rounds a used percent to the gauge's 5 % steps.
func stepOf(u float64) int {
	if math.IsNaN(u) {
		u = 0
	}
	return int(math.Round(math.Min(math.Max(u, 0), 100)/5)) * 5
}

// toneColors are the badges' colours; the amber is dark enough for white
// digits.
var toneColors = [...]color.NRGBA{
	toneNone:  {0x6b, 0x6b, 0x6b, 0xff},
	toneOK:    {0x2e, 0x7d, 0x32, 0xff},
	toneWarn:  {0xb8, 0x5c, 0x00, 0xff},
	toneAlert: {0xc6, 0x28, 0x28, 0xff},
}

// colorInk is the figure's and the filled gauge's.
var colorInk = color.NRGBA{0xff, 0xff, 0xff, 0xff}

// draw paints a rounded badge in the tone's colour (it reads on light and
// dark panels), the figure in white, and a gauge of the used share below.
// Every pixel is opaque or transparent: partly transparent ones are garbled
// on their way to Linux hosts, and hard pixels keep 16 px digits legible.
func (k iconKey) draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	bg := toneColors[k.Tone]
	track := color.NRGBA{bg.R / 2, bg.G / 2, bg.B / 2, 0xff}
	corner := 1 + size/16 // pixels cut off each corner's diagonal
	for y := range size {
		for x := range size {
			dx, dy := min(x, size-1-x), min(y, size-1-y)
			if dx+dy < corner {
				continue
			}
			img.SetNRGBA(x, y, bg)
		}
	}
	pad, bar, w, h := iconLayout(size)
	barY := pad + h + 1
	// The gauge: the track across the badge, the used share filled.
	barW := size - 2*pad
	filled := int(math.Round(float64(barW) * float64(k.Step) / 100))
	for y := barY; y < barY+bar; y++ {
		for x := range barW {
			c := track
			if x < filled {
				c = colorInk
			}
			img.SetNRGBA(pad+x, y, c)
		}
	}
	text := k.Text
	if text == "" {
		text = "-"
	}
	if l, ok := fitText(text, w, h); ok {
		x0 := pad + (w-l.width()+1)/2
		y0 := pad + (h-l.height()+1)/2
		l.each(x0, y0, func(x, y int) { img.SetNRGBA(x, y, colorInk) })
	}
	return img
}

// iconLayout is the padding, the gauge's height and the figure's box above
// it (one pixel between) on an icon of side size.
func iconLayout(size int) (pad, bar, textW, textH int) {
	pad = max(1, size/16)
	bar = max(2, size/10)
	return pad, bar, size - 2*pad, size - 2*pad - bar - 1
}

var (
	iconMu    sync.Mutex
	iconCache = map[iconKey][][]byte{}
)

// iconPNGs are an icon's PNGs at every iconSizes side, drawn once per key.
func iconPNGs(k iconKey) [][]byte {
	iconMu.Lock()
	defer iconMu.Unlock()
	if b, ok := iconCache[k]; ok {
		return b
	}
	var out [][]byte
	for _, size := range iconSizes {
		out = append(out, encodePNG(k.draw(size)))
	}
	iconCache[k] = out
	return out
}

// encodePNG cannot fail: it writes to memory.
func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("tray: encoding an in-memory PNG: " + err.Error())
	}
	return buf.Bytes()
}

// iconPNG is the largest, for hosts that take one image and scale it.
func iconPNG(k iconKey) []byte {
	all := iconPNGs(k)
	return all[len(all)-1]
}

// wrapICO puts PNGs in one ICO, from which Windows picks the size it needs.
// An entry holds a side in a byte; 256 wraps to 0, as the format wants.
func wrapICO(pngs ...[]byte) []byte {
	le := binary.LittleEndian
	var head, body bytes.Buffer
	head.Write(le.AppendUint16(nil, 0)) // reserved
	head.Write(le.AppendUint16(nil, 1)) // type: icon
	head.Write(le.AppendUint16(nil, uint16(len(pngs))))
	offset := 6 + 16*len(pngs)
	for _, p := range pngs {
		cfg, err := png.DecodeConfig(bytes.NewReader(p))
		if err != nil {
			return nil
		}
		head.WriteByte(byte(cfg.Width))
		head.WriteByte(byte(cfg.Height))
		head.WriteByte(0)                    // no palette
		head.WriteByte(0)                    // reserved
		head.Write(le.AppendUint16(nil, 1))  // colour planes
		head.Write(le.AppendUint16(nil, 32)) // bits per pixel
		head.Write(le.AppendUint32(nil, uint32(len(p))))
		head.Write(le.AppendUint32(nil, uint32(offset+body.Len())))
		body.Write(p)
	}
	if len(pngs) == 0 {
		return nil
	}
	return append(head.Bytes(), body.Bytes()...)
}
