package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"

	"github.com/agentrunway/runway/burn"
)

// iconSize is the side of the drawn icon in pixels; panels scale it down to
// 16–24, and 32 keeps the ring smooth on high-density screens.
const iconSize = 32

// iconKey is everything an icon depends on. Steps of 5 % keep the set of
// distinct icons small: Windows leaves a temp file per icon it is given.
type iconKey struct {
	State burn.State
	Step  int // used percent of the active window, rounded to 5
}

// iconFor quantises a provider's window into an icon: the window burn's
// verdict finds worst (burn.ProviderStatus.WorstWindow). nil is the dashed
// ring of "no data".
func iconFor(p *burn.ProviderStatus) iconKey {
	if p == nil {
		return iconKey{State: burn.NoData}
	}
	// burn's verdict picks the window, as it does for --check and the line.
	w := p.WorstWindow()
	if w == nil {
		return iconKey{State: burn.NoData}
	}
	k := iconKey{State: w.State}
	state := w.State
	switch state {
	case burn.OnTrack, burn.RunoutBeforeReset, burn.Low, burn.Exhausted:
	default:
		k.State = burn.NoData
	}
	if k.State == burn.Exhausted {
		k.Step = 100
		return k
	}
	u := w.UsedPercent
	if math.IsNaN(u) {
		u = 0
	}
	k.Step = int(math.Round(math.Min(math.Max(u, 0), 100)/5)) * 5
	return k
}

var (
	colorOnTrack = color.NRGBA{0x3d, 0xae, 0x5a, 0xff} // green
	colorRunout  = color.NRGBA{0xf0, 0xa0, 0x20, 0xff} // amber
	colorLow     = color.NRGBA{0xe0, 0x40, 0x40, 0xff} // red
	colorNoData  = color.NRGBA{0x9a, 0x9a, 0x9a, 0xff} // grey, dashed
	colorTrack   = color.NRGBA{0x80, 0x80, 0x80, 0xff} // the unused part of the ring
)

func (k iconKey) color() color.NRGBA {
	switch k.State {
	case burn.OnTrack:
		return colorOnTrack
	case burn.RunoutBeforeReset:
		return colorRunout
	case burn.Low, burn.Exhausted:
		return colorLow
	}
	return colorNoData
}

// draw paints the gauge: a ring whose filled arc, clockwise from twelve
// o'clock, is the used share of the window, in the state's colour, over a
// grey track. With no data the ring is dashed.
//
// Every pixel is either opaque or transparent: systray hands Linux hosts
// the low byte of premultiplied 16-bit channels, which garbles any partly
// transparent pixel. Colours still blend where the arc meets the track.
func (k iconKey) draw() *image.NRGBA {
	const (
		sub   = 4 // subsamples per pixel side
		outer = iconSize/2 - 0.5
		inner = outer - 7
	)
	img := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	fill := k.color()
	frac := float64(k.Step) / 100
	for y := range iconSize {
		for x := range iconSize {
			var r, g, b, n float64
			for sy := range sub {
				for sx := range sub {
					dx := float64(x) + (float64(sx)+0.5)/sub - iconSize/2
					dy := float64(y) + (float64(sy)+0.5)/sub - iconSize/2
					d := math.Hypot(dx, dy)
					if d < inner || d > outer {
						continue
					}
					angle := math.Atan2(dx, -dy) // 0 at twelve, clockwise
					if angle < 0 {
						angle += 2 * math.Pi
					}
					c := colorTrack
					switch {
					case k.State == burn.NoData:
						if int(angle/(2*math.Pi)*16)%2 == 1 {
							continue // the gaps of the dashes
						}
						c = fill
					case angle < frac*2*math.Pi:
						c = fill
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					n++
				}
			}
			if n < sub*sub/2 {
				continue
			}
			img.SetNRGBA(x, y, color.NRGBA{
				R: uint8(math.Round(r / n)),
				G: uint8(math.Round(g / n)),
				B: uint8(math.Round(b / n)),
				A: 0xff,
			})
		}
	}
	return img
}

var (
	iconMu    sync.Mutex
	iconCache = map[iconKey][]byte{}
)

// iconPNG is the PNG of an icon, drawn once per key.
func iconPNG(k iconKey) []byte {
	iconMu.Lock()
	defer iconMu.Unlock()
	if b, ok := iconCache[k]; ok {
		return b
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, k.draw()); err != nil {
		panic("tray: encoding an in-memory PNG: " + err.Error()) // cannot fail on a bytes.Buffer
	}
	iconCache[k] = buf.Bytes()
	return buf.Bytes()
}

// IconPNG is the tray icon for a provider's active window as a PNG: a gauge
// of the used percent in 5 % steps, green on track, amber when it runs out
// before the reset, red when low or exhausted, grey without data (p nil).
func IconPNG(p *burn.ProviderStatus) []byte {
	return iconPNG(iconFor(p))
}

// wrapICO puts a PNG in a single-image ICO container, which Windows accepts
// since Vista.
func wrapICO(pngData []byte) []byte {
	cfg, err := png.DecodeConfig(bytes.NewReader(pngData))
	if err != nil {
		return nil
	}
	side := func(n int) byte {
		if n >= 256 {
			return 0 // 0 means 256 in an ICO entry
		}
		return byte(n)
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write(le.AppendUint16(nil, 0)) // reserved
	b.Write(le.AppendUint16(nil, 1)) // type: icon
	b.Write(le.AppendUint16(nil, 1)) // one image
	b.WriteByte(side(cfg.Width))
	b.WriteByte(side(cfg.Height))
	b.WriteByte(0)                    // no palette
	b.WriteByte(0)                    // reserved
	b.Write(le.AppendUint16(nil, 1))  // colour planes
	b.Write(le.AppendUint16(nil, 32)) // bits per pixel
	b.Write(le.AppendUint32(nil, uint32(len(pngData))))
	b.Write(le.AppendUint32(nil, 6+16)) // the image follows the one entry
	b.Write(pngData)
	return b.Bytes()
}
