package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentrunway/runway/burn"
)

// iconCases are the states the tray shows; each has a golden PNG to look at.
var iconCases = []struct {
	name string
	p    *burn.ProviderStatus
}{
	{"on_track", &burn.ProviderStatus{State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: 38, State: burn.OnTrack}}},
	{"runout_before_reset", &burn.ProviderStatus{State: burn.RunoutBeforeReset, Window: &burn.WindowStatus{UsedPercent: 66, State: burn.RunoutBeforeReset}}},
	{"low", &burn.ProviderStatus{State: burn.Low, Window: &burn.WindowStatus{UsedPercent: 92, State: burn.Low}}},
	{"exhausted", &burn.ProviderStatus{State: burn.Exhausted, Window: &burn.WindowStatus{UsedPercent: 100, State: burn.Exhausted}}},
	{"no_data", nil},
}

// TestIconGolden compares pixels, not bytes, so a change in the PNG encoder
// does not fail it. go test ./tray -run TestIconGolden -update rewrites them.
func TestIconGolden(t *testing.T) {
	for _, c := range iconCases {
		t.Run(c.name, func(t *testing.T) {
			got := IconPNG(c.p)
			path := filepath.Join("testdata", "icon-"+c.name+".png")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			gi, wi := decodePNG(t, got), decodePNG(t, want)
			if gi.Bounds() != wi.Bounds() {
				t.Fatalf("size %v, golden %v", gi.Bounds(), wi.Bounds())
			}
			for y := range iconSize {
				for x := range iconSize {
					if gi.At(x, y) != wi.At(x, y) {
						t.Fatalf("pixel (%d,%d) is %v, golden %v", x, y, gi.At(x, y), wi.At(x, y))
					}
				}
			}
		})
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

// TestIconQuantised: icons change in 5 % steps, so a slowly moving window
// gives few distinct icons.
func TestIconQuantised(t *testing.T) {
	seen := map[string]bool{}
	for u := 0.0; u <= 100; u += 0.25 {
		p := &burn.ProviderStatus{State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: u, State: burn.OnTrack}}
		seen[string(IconPNG(p))] = true
	}
	if len(seen) != 21 {
		t.Errorf("%d distinct icons over 0–100 %%, want 21", len(seen))
	}
	a := IconPNG(&burn.ProviderStatus{State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: 41, State: burn.OnTrack}})
	b := IconPNG(&burn.ProviderStatus{State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: 39, State: burn.OnTrack}})
	if !bytes.Equal(a, b) {
		t.Error("39 % and 41 % draw different icons")
	}
	if k := iconFor(&burn.ProviderStatus{State: "nonsense", Window: &burn.WindowStatus{UsedPercent: 1e300, State: "nonsense"}}); k != (iconKey{State: burn.NoData}) {
		t.Errorf("unknown state gives %+v", k)
	}
	if k := iconFor(&burn.ProviderStatus{State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: 1e300, State: burn.OnTrack}}); k != (iconKey{State: burn.OnTrack, Step: 100}) {
		t.Errorf("huge percent gives %+v", k)
	}
}

// TestWrapICO reads the ICO back as Windows would: one entry pointing at a
// PNG of the right size.
func TestWrapICO(t *testing.T) {
	p := IconPNG(nil)
	ico := wrapICO(p)
	le := binary.LittleEndian
	if le.Uint16(ico[0:]) != 0 || le.Uint16(ico[2:]) != 1 || le.Uint16(ico[4:]) != 1 {
		t.Fatalf("header % x", ico[:6])
	}
	if ico[6] != iconSize || ico[7] != iconSize || le.Uint16(ico[12:]) != 32 {
		t.Errorf("entry % x", ico[6:22])
	}
	size, off := le.Uint32(ico[14:]), le.Uint32(ico[18:])
	if int(off+size) != len(ico) || !bytes.Equal(ico[off:], p) {
		t.Errorf("entry says %d bytes at %d; file is %d bytes", size, off, len(ico))
	}
	decodePNG(t, ico[off:])
	if wrapICO([]byte("not a png")) != nil {
		t.Error("wrapped junk")
	}
}
