package tray

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// iconCases are the icons the tray shows, by what the user should read off
// them; each has a golden PNG per size to look at.
var iconCases = []struct {
	name string
	key  iconKey
}{
	{"on_track", iconKey{Tone: toneOK, Text: "38", Step: 40}},
	{"runout", iconKey{Tone: toneWarn, Text: "65", Step: 60}},
	{"alert_3digits", iconKey{Tone: toneAlert, Text: "142", Step: 85}},
	{"idle_percent", iconKey{Tone: toneOK, Text: "42%", Step: 40}},
	{"exhausted", iconKey{Tone: toneAlert, Text: "100%", Step: 100}},
	{"no_data", iconKey{Tone: toneNone}},
}

// TestIconGolden compares every size of every icon with its golden PNG,
// pixel for pixel (a change in the PNG encoder does not fail it).
func TestIconGolden(t *testing.T) {
	for _, c := range iconCases {
		for i, size := range iconSizes {
			t.Run(fmt.Sprintf("%s/%d", c.name, size), func(t *testing.T) {
				path := filepath.Join("testdata", "icons", fmt.Sprintf("%s-%d.png", c.name, size))
				golden(t, path, iconPNGs(c.key)[i], func(got, want []byte) string {
					gi, wi := decodePNG(t, got), decodePNG(t, want)
					if gi.Bounds() != wi.Bounds() || gi.Bounds().Dx() != size {
						return fmt.Sprintf("size %v, golden %v, want %d px", gi.Bounds(), wi.Bounds(), size)
					}
					for y := range size {
						for x := range size {
							if gi.At(x, y) != wi.At(x, y) {
								return fmt.Sprintf("pixel (%d,%d) is %v, golden %v", x, y, gi.At(x, y), wi.At(x, y))
							}
						}
					}
					return ""
				})
			})
		}
	}
}

// TestIconLegible checks what makes the figure readable at every size:
// each glyph is drawn whole (nothing clipped or dropped but a "%" that
// does not fit), at least 2 px wide at 2 digits, at least 10 px tall, and
// every pixel is fully opaque or fully transparent.
func TestIconLegible(t *testing.T) {
	for _, c := range iconCases {
		for _, size := range iconSizes {
			img := c.key.draw(size)
			for i := 3; i < len(img.Pix); i += 4 {
				if a := img.Pix[i]; a != 0 && a != 0xff {
					t.Fatalf("%s at %d: a pixel with alpha %d", c.name, size, a)
				}
			}
			text := c.key.Text
			if text == "" {
				text = "-"
			}
			_, _, w, h := iconLayout(size)
			l, ok := fitText(text, w, h)
			if !ok {
				t.Fatalf("%s does not fit at %d px", text, size)
			}
			if l.height() < 10 {
				t.Errorf("%s at %d px: glyphs %d px tall, want ≥ 10", text, size, l.height())
			}
			if len([]rune(text)) == 2 && l.sx < 2 {
				t.Errorf("%s at %d px: glyph strokes %d px wide, want ≥ 2", text, size, l.sx)
			}
			if got := string(l.text); got != text && got+"%" != text {
				t.Errorf("%s at %d px is drawn as %q", text, size, got)
			}
		}
	}
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestGlance pins what the icon and the label say for the most urgent
// window: m/h while it burns ("~" when estimated), its percent when nothing
// burns, and red within 10 minutes of the run-out or with a critical
// notice out.
func TestGlance(t *testing.T) {
	at := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	in := func(d time.Duration) *time.Time { x := at.Add(d); return &x }
	win := func(used, mph float64, m burn.Method, st burn.State, runout *time.Time) *burn.ProviderStatus {
		w := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: used, State: st, RunoutAt: runout, ResetsAt: in(time.Hour),
			Burn: burn.Burn{QuotaMinutesPerHour: mph, Method: m}}
		return &burn.ProviderStatus{Provider: burn.Claude, Window: w, State: st, RunoutAt: runout, Burn: w.Burn}
	}
	for _, c := range []struct {
		name  string
		p     *burn.ProviderStatus
		alert bool
		key   iconKey
		label string
	}{
		{"burning", win(42, 38.4, burn.MethodMeasured, burn.OnTrack, nil), false, iconKey{toneOK, "38", 40}, "38m/h"},
		{"estimated", win(42, 19, burn.MethodAverage, burn.OnTrack, nil), false, iconKey{toneOK, "19", 40}, "~19m/h"},
		{"nothing burns", win(42.3, 0.2, burn.MethodMeasured, burn.OnTrack, nil), false, iconKey{toneOK, "42%", 40}, "42.3%"},
		{"no burn yet", win(12, 0, burn.MethodNone, burn.OnTrack, nil), false, iconKey{toneOK, "12%", 10}, "12%"},
		{"almost full", win(99.8, 0, burn.MethodMeasured, burn.OnTrack, nil), false, iconKey{toneOK, "99%", 100}, "99.8%"},
		{"runs out in 35m", win(66, 65, burn.MethodMeasured, burn.RunoutBeforeReset, in(35*time.Minute)), false, iconKey{toneWarn, "65", 65}, "65m/h"},
		{"runs out in 9m", win(90, 80, burn.MethodMeasured, burn.RunoutBeforeReset, in(9*time.Minute)), false, iconKey{toneAlert, "80", 90}, "80m/h"},
		{"critical notice out", win(66, 65, burn.MethodMeasured, burn.RunoutBeforeReset, in(35*time.Minute)), true, iconKey{toneAlert, "65", 65}, "65m/h"},
		{"exhausted", win(100, 0, burn.MethodMeasured, burn.Exhausted, nil), false, iconKey{toneAlert, "100%", 100}, "100%"},
		{"rising faster than the figure", behind(win(42, 45, burn.MethodMeasured, burn.OnTrack, nil)), false, iconKey{toneNone, "45", 40}, "~45m/h"},
		{"no percent", &burn.ProviderStatus{Provider: burn.Codex, State: burn.NoData}, true, iconKey{Tone: toneNone}, ""},
		{"nothing at all", nil, false, iconKey{Tone: toneNone}, ""},
	} {
		k, label := glance(c.p, at, c.alert)
		if k != c.key || label != c.label {
			t.Errorf("%s: icon %+v label %q, want %+v %q", c.name, k, label, c.key, c.label)
		}
	}
}

// behind marks p's burn as catching up with a faster pace its ticks show
// (burn.Burn.Behind): the verdict "lasts" is unproven.
func behind(p *burn.ProviderStatus) *burn.ProviderStatus {
	p.Window.Burn.Behind, p.Window.Burn.Settling = true, true
	p.Burn = p.Window.Burn
	return p
}

// TestWrapICO reads the ICO back as Windows would: one entry per size, each
// pointing at a PNG of that size.
func TestWrapICO(t *testing.T) {
	pngs := iconPNGs(iconKey{Tone: toneWarn, Text: "65", Step: 60})
	ico := wrapICO(pngs...)
	le := binary.LittleEndian
	if le.Uint16(ico[0:]) != 0 || le.Uint16(ico[2:]) != 1 || int(le.Uint16(ico[4:])) != len(iconSizes) {
		t.Fatalf("header % x", ico[:6])
	}
	for i, size := range iconSizes {
		e := ico[6+16*i:]
		if int(e[0]) != size || int(e[1]) != size || le.Uint16(e[6:]) != 32 {
			t.Errorf("entry %d: % x", i, e[:16])
		}
		n, off := le.Uint32(e[8:]), le.Uint32(e[12:])
		if !bytes.Equal(ico[off:off+n], pngs[i]) {
			t.Errorf("entry %d does not point at the %d px PNG", i, size)
		}
		decodePNG(t, ico[off:off+n])
	}
	if wrapICO([]byte("not a png")) != nil || wrapICO() != nil {
		t.Error("wrapped junk")
	}
}

// TestIconSheet keeps docs/tray-icons.png, every icon at every size, at
// its real size and magnified 4× (pixels kept), on a dark and a light
// panel: what a reader sees of the icon before installing. -update
// rewrites it.
func TestIconSheet(t *testing.T) {
	const zoom, gap = 4, 6
	dark := color.NRGBA{0x20, 0x20, 0x20, 0xff}
	light := color.NRGBA{0xee, 0xee, 0xee, 0xff}
	colW := 0
	for _, s := range iconSizes {
		colW += s + gap + s*zoom + gap
	}
	rowH := iconSizes[len(iconSizes)-1]*zoom + gap
	sheet := image.NewNRGBA(image.Rect(0, 0, 2*(colW+gap), len(iconCases)*rowH+gap))
	for i, bg := range []color.NRGBA{dark, light} {
		draw.Draw(sheet, image.Rect(i*(colW+gap), 0, (i+1)*(colW+gap), sheet.Rect.Dy()), image.NewUniform(bg), image.Point{}, draw.Src)
	}
	for r, c := range iconCases {
		for panel := range 2 {
			x := panel*(colW+gap) + gap
			y := gap + r*rowH
			for _, size := range iconSizes {
				img := c.key.draw(size)
				draw.Draw(sheet, image.Rect(x, y, x+size, y+size), img, image.Point{}, draw.Over)
				x += size + gap
				for py := range size * zoom {
					for px := range size * zoom {
						if p := img.NRGBAAt(px/zoom, py/zoom); p.A != 0 {
							sheet.SetNRGBA(x+px, y+py, p)
						}
					}
				}
				x += size*zoom + gap
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, sheet); err != nil {
		t.Fatal(err)
	}
	// Byte for byte: the encoder is the standard library's.
	golden(t, filepath.Join("..", "docs", "tray-icons.png"), buf.Bytes(), func(got, want []byte) string {
		if bytes.Equal(got, want) {
			return ""
		}
		return "not the icons drawn now"
	})
}

// TestIconNotGreenWhenTheGateCannotTell: the icon and runway now --check
// agree (docs/burn-model.md, "The verdict"): a window on track beside a
// session log runway could not read is grey, not green; one that runs out
// stays amber.
func TestIconNotGreenWhenTheGateCannotTell(t *testing.T) {
	at := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	reset := at.Add(time.Hour)
	snap := func(st burn.State, runout *time.Time) burn.Snapshot {
		w := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 42, State: st, RunoutAt: runout, ResetsAt: &reset, Fresh: true,
			Burn: burn.Burn{QuotaMinutesPerHour: 38, Method: burn.MethodMeasured}}
		return burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, Window: w, State: st, RunoutAt: runout, Burn: w.Burn}},
			Unread: []string{"session logs at /home/ann/.claude/projects/x/a.jsonl (see the warnings)"}}
	}
	v := render(snap(burn.OnTrack, nil), time.UTC, SessionsAuto, 5, false)
	if v.Icon.Tone != toneNone {
		t.Errorf("on track, a log unread: tone %v, want grey (the gate cannot tell)", v.Icon.Tone)
	}
	// The menu and the tooltip do not say it lasts either.
	for _, s := range []string{v.Groups[0].Runout, v.Tooltip} {
		if strings.Contains(s, "on track") || !strings.Contains(s, "not known to last") {
			t.Errorf("on track, a log unread: %q, want \"not known to last\"", s)
		}
	}
	runout := at.Add(40 * time.Minute)
	if v := render(snap(burn.RunoutBeforeReset, &runout), time.UTC, SessionsAuto, 5, false); v.Icon.Tone != toneWarn {
		t.Errorf("runs out, a log unread: tone %v, want amber (a known run-out)", v.Icon.Tone)
	}
}
