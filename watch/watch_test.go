package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// demoEnd is when the demo history ends in these tests.
var demoEnd = time.Date(2026, 11, 20, 13, 35, 0, 0, time.UTC)

// scene is the demo seen at one instant: the snapshot `runway now --at`
// gives, and the sample log the chart reads.
type scene struct {
	snap    burn.Snapshot
	history func(burn.Provider, burn.WindowClass, time.Time) []burn.Sample
}

// demoScene writes the demo history ending at demoEnd, lets change alter
// it, and takes the first snapshot of an Engine whose clock says at: what
// `runway watch` shows, with the samples its chart reads.
func demoScene(t testing.TB, at time.Time, change func(dir string)) scene {
	t.Helper()
	dir := t.TempDir()
	env, err := runway.DemoEnv(dir, runway.DefaultConfig(), demoEnd)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(dir)
	}
	first := make(chan burn.Snapshot, 1)
	engine := runway.NewEngine(env, runway.EngineOptions{
		Now:       func() time.Time { return at },
		NoNotices: true,
		OnSnapshot: func(s burn.Snapshot) {
			select {
			case first <- s:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { engine.Run(ctx); close(done) }()
	snap := <-first
	cancel()
	<-done
	return scene{snap: snap, history: engine.History}
}

// sceneAt is each verdict the view must draw: the instant the demo is seen
// at, and what is changed in its folder first.
var sceneAt = map[string]func(t testing.TB) scene{
	// The demo as it ends: three sessions run the 5-hour window dry
	// 20 minutes before its reset.
	"runout": func(t testing.TB) scene { return demoScene(t, demoEnd, nil) },
	// The same history 25 minutes later, every session paused: the
	// window's average pace lasts to the reset.
	"ontrack": func(t testing.TB) scene { return demoScene(t, demoEnd.Add(25*time.Minute), nil) },
	// A limit hit a minute after the demo ends: exhausted until the reset.
	"exhausted": func(t testing.TB) scene {
		return demoScene(t, demoEnd.Add(time.Minute), func(dir string) {
			appendLimitHit(t, dir, demoEnd.Add(time.Minute), demoEnd.Add(90*time.Minute))
		})
	},
	// No account sample for Claude at all (no statusline recorded any):
	// its sessions still burn, its window has no data.
	"nodata": func(t testing.TB) scene {
		return demoScene(t, demoEnd, func(dir string) {
			if err := os.Remove(filepath.Join(dir, "state", quota.LogName)); err != nil {
				t.Fatal(err)
			}
		})
	},
}

// scenes are the four verdicts, each an engine's first snapshot.
func scenes(t testing.TB) map[string]scene {
	all := map[string]scene{}
	for name, at := range sceneAt {
		all[name] = at(t)
	}
	return all
}

// shopAPI is the demo's busiest Claude transcript.
func shopAPI(dir string) string {
	return filepath.Join(dir, "claude", "projects", "-home-dev-src-shop-api", "7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01.jsonl")
}

func appendLimitHit(t testing.TB, dir string, at, resets time.Time) {
	t.Helper()
	c := &synth.Claude{SessionID: "7d0c6a52-5a8e-4e43-9c55-1f3b0c3e9a01", Cwd: "/home/dev/src/shop-api", Model: "claude-opus-4-5-20251101"}
	appendLines(t, shopAPI(dir), c.LimitHit(at, resets, "five_hour"))
}

func appendLines(t testing.TB, path string, lines ...[]byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			t.Fatal(err)
		}
	}
}

// newModel is sc's view; without colour (as NO_COLOR) golden frames stay
// readable and the same on every terminal.
func newModel(sc scene, colour bool) *Model {
	return New(Options{History: sc.history, Config: runway.DefaultConfig().Burn(), Location: time.UTC, Colour: colour})
}

// frameAt is sc's frame at w×h without colour.
func frameAt(sc scene, w, h int) string {
	m := newModel(sc, false)
	m.Resize(w, h)
	m.Show(sc.snap)
	return m.View()
}

var update = flag.Bool("update", false, "rewrite the golden frames in testdata")

// TestFrames renders the demo's four verdicts at 60×24, 80×24 and 120×40
// and compares each frame with its golden file (-update rewrites them).
func TestFrames(t *testing.T) {
	all := scenes(t)
	want := map[string]burn.State{"runout": burn.RunoutBeforeReset, "ontrack": burn.OnTrack, "exhausted": burn.Exhausted, "nodata": burn.NoData}
	for name, sc := range all {
		p := sc.snap.Provider(burn.Claude)
		if p == nil || p.State != want[name] {
			t.Fatalf("%s: the demo gives claude %+v, want state %s", name, p, want[name])
		}
		for _, size := range [][2]int{{60, 24}, {80, 24}, {120, 40}} {
			t.Run(name+"_"+strconv.Itoa(size[0])+"x"+strconv.Itoa(size[1]), func(t *testing.T) {
				frame := frameAt(sc, size[0], size[1])
				checkFits(t, frame, size[0], size[1])
				golden := filepath.Join("testdata", t.Name()+".golden")
				if *update {
					if err := os.WriteFile(golden, []byte(frame), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if want, err := os.ReadFile(golden); err != nil || string(want) != frame {
					t.Fatalf("frame differs from %s (%v); got:\n%s\nwant:\n%s", golden, err, frame, want)
				}
			})
		}
	}
}

// checkFits fails when a frame is not exactly the terminal's size.
func checkFits(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := width(l); n > w {
			t.Errorf("line %d is %d wide, more than %d: %q", i, n, w, l)
		}
	}
}

// TestSmallTerminals: every size down to a strip keeps to the terminal and
// keeps the verdict line.
func TestSmallTerminals(t *testing.T) {
	sc := sceneAt["runout"](t)
	for _, size := range [][2]int{{60, 20}, {80, 12}, {40, 10}, {30, 5}, {20, 3}} {
		frame := frameAt(sc, size[0], size[1])
		checkFits(t, frame, size[0], size[1])
		if size[1] >= 5 && !strings.Contains(frame, "claude 5h") {
			t.Errorf("%dx%d: no claude row:\n%s", size[0], size[1], frame)
		}
	}
}

// TestKeys: tab switches the chart and sessions to the next provider, s
// shows idle sessions, ? shows the help, q quits.
func TestKeys(t *testing.T) {
	sc := sceneAt["runout"](t)
	m := newModel(sc, false)
	m.Resize(100, 30)
	m.Show(sc.snap)
	if v := m.View(); !strings.Contains(v, "shop-api") || strings.Contains(v, "api-gateway") || strings.Contains(v, "notes") {
		t.Fatalf("claude first, idle hidden:\n%s", v)
	}
	m.Key("s")
	if v := m.View(); !strings.Contains(v, "notes") {
		t.Fatalf("s shows the idle session:\n%s", v)
	}
	m.Key("tab")
	if v := m.View(); !strings.Contains(v, "api-gateway") || strings.Contains(v, "shop-api") || !strings.Contains(v, "codex 5h 12m/h · lasts at ≤82 · on track to the reset") {
		t.Fatalf("tab shows codex:\n%s", v)
	}
	m.Key("?")
	if v := m.View(); !strings.Contains(v, "quota minutes per hour") {
		t.Fatalf("? shows the help:\n%s", v)
	}
	if m.Key("q") || m.Key("ctrl+c") {
		t.Fatal("q or ctrl+c does not quit")
	}
}

// TestKeyNames: what a raw terminal sends for each key the view takes.
func TestKeyNames(t *testing.T) {
	for in, want := range map[string]string{"q": "q", "\x03": "ctrl+c", "\x1b": "esc", "?s": "? s",
		"\t": "tab", "\x1b[Z": "shift+tab", "\x1b[A": "", "": ""} {
		if got := strings.Join(keyNames([]byte(in)), " "); got != want {
			t.Errorf("%q reads as %q, want %q", in, got, want)
		}
	}
}

// TestVerdictColours: green on track, amber run-out before the reset, red
// exhausted; and no escape at all without colour (NO_COLOR).
func TestVerdictColours(t *testing.T) {
	all := scenes(t)
	for name, code := range map[string]string{"ontrack": "\x1b[32m", "runout": "\x1b[33m", "exhausted": "\x1b[1;31m"} {
		sc := all[name]
		m := newModel(sc, true)
		m.Show(sc.snap)
		v := m.View()
		if !strings.Contains(v, code+"58%") && !strings.Contains(v, code+"100%") && !strings.Contains(v, code) {
			t.Errorf("%s: no %q in\n%q", name, code, v)
		}
		if v := frameAt(sc, 80, 24); strings.Contains(v, "\x1b[") {
			t.Errorf("%s without colour has an escape: %q", name, v)
		}
	}
}

// TestChartMeetsRunout: the projection meets 100 % where `runway now
// --json` puts the run-out, at the same instant.
func TestChartMeetsRunout(t *testing.T) {
	snap, err := runway.Demo(context.Background(), runway.DefaultConfig(), demoEnd)
	if err != nil {
		t.Fatal(err)
	}
	// Through the JSON `runway now --json` prints.
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var printed struct {
		Providers []struct {
			Provider string    `json:"provider"`
			RunoutAt time.Time `json:"runout_at"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(b, &printed); err != nil {
		t.Fatal(err)
	}
	var runout time.Time
	for _, p := range printed.Providers {
		if p.Provider == "claude" {
			runout = p.RunoutAt
		}
	}
	if runout.IsZero() {
		t.Fatalf("the demo prints no claude run-out: %s", b)
	}
	p := snap.Provider(burn.Claude)
	pl, why := newPlot(p.Window, nil, snap.At, runway.DefaultConfig().Burn())
	if why != "" {
		t.Fatal(why)
	}
	if d := pl.to.Sub(runout); pl.toPct != 100 || d < -time.Second || d > time.Second {
		t.Fatalf("the projection reaches %v%% at %v, `now --json` runs out at %v", pl.toPct, pl.to, runout)
	}
	// And on screen: the projection ends on the 100 % dot row in the
	// run-out's column (the line steps there, so it first touches that row
	// at most a column before), which the axis marks ▲.
	for _, w := range []int{60, 113} {
		c := newCanvas(w, 8)
		c.line(c.proj, pl.xDot(pl.now, w), yDot(pl.from, 8), pl.xDot(pl.to, w), yDot(pl.toPct, 8), false)
		first, last := -1, -1
		for x := range w {
			if c.proj[0][x]&(brailleBit[0][0]|brailleBit[1][0]) != 0 {
				last = x
				if first < 0 {
					first = x
				}
			}
		}
		want := pl.column(runout, w)
		if last != want || first < want-1 {
			t.Errorf("width %d: the projection is at 100%% in columns %d to %d, the run-out is in column %d", w, first, last, want)
		}
		axis := []rune(pl.axis(w, newStyles(false)))
		if got := axis[yLabelWidth+pl.column(runout, w)]; got != '▲' {
			t.Errorf("width %d: the axis has %q under the run-out, want ▲: %s", w, got, string(axis))
		}
	}
}

// TestAppendedLineChangesFrame runs a real Engine on the demo: a usage line
// appended to a transcript reaches the frame.
func TestAppendedLineChangesFrame(t *testing.T) {
	dir := t.TempDir()
	env, err := runway.DemoEnv(dir, runway.DefaultConfig(), demoEnd)
	if err != nil {
		t.Fatal(err)
	}
	snaps := make(chan burn.Snapshot, 16)
	engine := runway.NewEngine(env, runway.EngineOptions{
		Now:        func() time.Time { return demoEnd },
		OnSnapshot: func(s burn.Snapshot) { snaps <- s },
		NoNotices:  true,
		Debounce:   10 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { engine.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	m := New(Options{History: engine.History, Location: time.UTC})
	m.Resize(100, 30)
	next := func() string {
		select {
		case s := <-snaps:
			m.Show(s)
			return m.View()
		case <-time.After(30 * time.Second):
			t.Fatal("no snapshot from the engine in 30 s")
		}
		return ""
	}
	before := next()
	if !strings.Contains(before, "docs-site") {
		t.Fatalf("first frame:\n%s", before)
	}
	// docs-site answers with a response of a million tokens.
	c := &synth.Claude{SessionID: "2b9e4f10-3c1d-4a7e-8f20-6d5c4b3a2910", Cwd: "/home/dev/src/docs-site", Model: "claude-sonnet-4-5-20250929"}
	path := filepath.Join(dir, "claude", "projects", "-home-dev-src-docs-site", "2b9e4f10-3c1d-4a7e-8f20-6d5c4b3a2910.jsonl")
	appendLines(t, path, c.Response(demoEnd.Add(-time.Second), "msg_01APPENDED", "req_011CAPPENDED", synth.Usage{Output: 200000, CacheCreation: 800000}, 1, "tool_use")...)
	// The engine also refreshes on its own (the same frame): a few of
	// those may come first.
	for range 10 {
		after := next()
		if after != before {
			if !bytes.Contains([]byte(after), []byte("docs-site")) {
				t.Fatalf("frame after the line:\n%s", after)
			}
			return
		}
	}
	t.Fatal("the appended line never changed the frame")
}

// FuzzView: any snapshot, at any size, with its samples as history, draws
// a frame of exactly the terminal's size without a panic. The seeds in
// testdata/fuzz/FuzzView are the golden frames' snapshots.
func FuzzView(f *testing.F) {
	f.Add([]byte(`{"at":"2026-11-20T13:35:00Z","providers":[{"provider":"claude","window":{"class":"5h","minutes":-5,"used_percent":1e300,"resets_at":"1970-01-01T00:00:00Z","burn":{"percent_per_s":1e300}}}]}`), uint8(7), uint8(2))
	// A window that lasts only at a burn its ticks prove behind, and such
	// a weekly one: the longest verdict words.
	f.Add([]byte(`{"at":"2026-11-20T13:35:00Z","providers":[{"provider":"claude","state":"on_track","window":{"class":"5h","minutes":300,"used_percent":40,"state":"on_track","fresh":true,"observed_at":"2026-11-20T13:35:00Z","resets_at":"2026-11-20T16:00:00Z","burn":{"percent_per_s":0.002,"quota_minutes_per_hour":36,"method":"measured","settling":true,"behind":true}},"weekly":{"class":"weekly","minutes":10080,"used_percent":60,"state":"on_track","resets_at":"2026-11-23T13:00:00Z","burn":{"percent_per_s":0.0005,"quota_minutes_per_hour":20,"method":"nowcast","settling":true,"behind":true}}}]}`), uint8(80), uint8(24))
	f.Fuzz(func(t *testing.T, data []byte, w, h uint8) {
		var s burn.Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		// The history is the windows' own figures as samples.
		var history []burn.Sample
		for _, p := range s.Providers {
			for _, win := range []*burn.WindowStatus{p.Window, p.Weekly} {
				if win != nil {
					history = append(history, burn.Sample{ObservedAt: win.ObservedAt, Provider: p.Provider, Window: win.Class, UsedPercent: win.UsedPercent, WindowMinutes: win.Minutes})
				}
			}
		}
		m := New(Options{History: func(burn.Provider, burn.WindowClass, time.Time) []burn.Sample { return history }, Location: time.UTC})
		width, height := max(int(w), 20), max(int(h), 3)
		m.Resize(width, height)
		m.Show(s)
		checkFits(t, m.View(), width, height)
		m.Key("tab")
		checkFits(t, m.View(), width, height)
	})
}

// TestElsewhereRow: burn no local session explains has its row, with its
// share of the provider's burn.
func TestElsewhereRow(t *testing.T) {
	sc := sceneAt["runout"](t)
	p := sc.snap.Provider(burn.Claude)
	p.ElsewhereQuotaMinutesPerHour = 0.25 * p.Burn.QuotaMinutesPerHour
	m := newModel(sc, false)
	m.Show(sc.snap)
	var row string
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.Contains(l, "elsewhere") {
			row = l
		}
	}
	if !strings.Contains(row, "27") || !strings.Contains(row, "25%") || !strings.Contains(row, "no local session") {
		t.Fatalf("elsewhere row %q in\n%s", row, m.View())
	}
}

// TestEmptySaysWhatNowSays: with no provider, the view says the sentence
// runway now and now --long say (three different ones before).
func TestEmptySaysWhatNowSays(t *testing.T) {
	m := New(Options{History: func(burn.Provider, burn.WindowClass, time.Time) []burn.Sample { return nil },
		Config: runway.DefaultConfig().Burn(), Location: time.UTC})
	m.Show(burn.Snapshot{At: time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)})
	if frame := m.View(); !strings.Contains(frame, text.NoAgentData+".") {
		t.Errorf("no %q in\n%s", text.NoAgentData, frame)
	}
}

// TestReferenceRowsStayOffTheLine: at every size, a chart cell shows the
// line or a reference row, never both mixed; the low row is drawn only
// on a text row of its own, where its label is.
func TestReferenceRowsStayOffTheLine(t *testing.T) {
	cfg := runway.DefaultConfig().Burn()
	for name, sc := range scenes(t) {
		p := sc.snap.Provider(burn.Claude)
		if p.Window == nil {
			continue
		}
		pl, why := newPlot(p.Window, sc.history(burn.Claude, p.Window.Class, time.Time{}), sc.snap.At, cfg)
		if why != "" {
			continue
		}
		for _, size := range [][2]int{{53, 7}, {73, 7}, {73, 10}, {113, 20}} {
			w, h := size[0], size[1]
			c := pl.draw(w, h)
			for r := range h {
				for x := range w {
					bits, layer := c.cell(r, x)
					line := c.dots[r][x] | c.proj[r][x]
					if line != 0 && bits != line || line == 0 && bits != c.low[r][x] && bits != c.full[r][x] {
						t.Fatalf("%s %dx%d: cell (%d,%d) shows %08b (layer %d); line %08b low %08b 100%% %08b", name, w, h, r, x, bits, layer, line, c.low[r][x], c.full[r][x])
					}
					if c.low[r][x] != 0 && r == rowOf(100, h) {
						t.Fatalf("%s %dx%d: the low row shares 100 %%'s text row %d", name, w, h, r)
					}
				}
			}
		}
	}
}

// TestNarrowKeepsSessionNames: on 60 columns the names were cut
// ("shop-api …") while the state column kept its 11 columns; the names get
// the room first, the state words and then the pause column go before.
func TestNarrowKeepsSessionNames(t *testing.T) {
	sc := sceneAt["runout"](t)
	for _, w := range []int{60, 50, 40} {
		frame := frameAt(sc, w, 24)
		checkFits(t, frame, w, 24)
		for _, name := range []string{"shop-api +1 agent ", "docs-site ", "infra "} {
			if !strings.Contains(frame, "  "+name) {
				t.Errorf("%d columns: no whole %q in\n%s", w, name, frame)
			}
		}
		// The pause column stays while it fits, whole.
		if w == 60 && !strings.Contains(frame, "lasts to reset\n") {
			t.Errorf("%d columns: the pause column is cut:\n%s", w, frame)
		}
	}
	// Wider than the table needs, the columns are as before.
	if frame := frameAt(sc, 80, 24); !strings.Contains(frame, "  shop-api +1 agent             64    2500    60%  measured    lasts to reset") {
		t.Errorf("80 columns changed:\n%s", frame)
	}
}

// TestUnprovenNeverLasts: where the gate cannot tell (here a log it could
// not read), no row or title says the window lasts, in words or in green.
func TestUnprovenNeverLasts(t *testing.T) {
	sc := sceneAt["ontrack"](t)
	sc.snap.Unread = []string{"session logs at /home/ann/.claude/projects/x/a.jsonl"}
	m := newModel(sc, true)
	m.Show(sc.snap)
	v := m.View()
	for _, lasts := range []string{"☺", "on track", "\x1b[32m"} {
		if strings.Contains(v, lasts) {
			t.Errorf("%q in\n%s", lasts, v)
		}
	}
	if !strings.Contains(v, "not known to last") {
		t.Errorf("no \"not known to last\" in\n%s", v)
	}
}
