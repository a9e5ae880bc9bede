package tray

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func loadSnapshot(t testing.TB, name string) burn.Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "snapshots", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s burn.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// dump is a view as the menu reads, one row a line, for golden files.
func dump(v view) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\ntooltip: %s\nicon: %s %d\n", v.Title, v.Tooltip, v.Icon.State, v.Icon.Step)
	for _, g := range v.Groups {
		b.WriteString("--\n")
		for _, s := range append(append([]string{g.Header, g.Runout, g.Weekly}, g.Sessions...), g.More, g.Elsewhere) {
			if s != "" {
				b.WriteString(s + "\n")
			}
		}
	}
	if v.Warning != "" {
		b.WriteString("--\n" + v.Warning + "\n")
	}
	return b.String()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tray -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test ./tray -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// TestRenderGolden renders each snapshot in every session list mode.
func TestRenderGolden(t *testing.T) {
	for _, name := range []string{"runout", "ontrack", "exhausted", "many", "weekly", "empty"} {
		t.Run(name, func(t *testing.T) {
			s := loadSnapshot(t, name)
			var out strings.Builder
			for _, mode := range []string{SessionsAuto, SessionsAlways, SessionsNever} {
				fmt.Fprintf(&out, "== %s\n%s", mode, dump(render(s, time.UTC, mode, 5)))
			}
			golden(t, filepath.Join("testdata", "snapshots", name+".txt"), []byte(out.String()))
		})
	}
}

// TestRenderRunout pins the rows the product spec names.
func TestRenderRunout(t *testing.T) {
	v := render(loadSnapshot(t, "runout"), time.UTC, SessionsAuto, 5)
	if want := "claude 38 m/h ▸14:35 · codex ~6 m/h"; v.Tooltip != want {
		t.Errorf("tooltip %q, want %q", v.Tooltip, want)
	}
	c := v.Groups[0]
	for got, want := range map[string]string{
		c.Header:      "Claude 5h 42.3% · resets 15:00",
		c.Runout:      "  38 m/h · runs out 14:35, 25 min before reset",
		c.Weekly:      "  weekly 63% · resets Sat 09:00",
		c.Sessions[0]: "    my-app 30 m/h · 2 subagents · pause → lasts",
		c.Sessions[1]: "    api 8 m/h · pause → +15 min",
		c.Sessions[2]: "    docs · waiting",
	} {
		if got != want {
			t.Errorf("row %q, want %q", got, want)
		}
	}
	if len(c.Sessions) != 3 {
		t.Errorf("auto lists %d sessions, want 3 (the idle one hidden)", len(c.Sessions))
	}
	if v.Groups[1].Runout != "  ~6 m/h · lasts to reset" {
		t.Errorf("codex runout row %q", v.Groups[1].Runout)
	}
	if v.Icon != (iconKey{State: burn.RunoutBeforeReset, Step: 40}) {
		t.Errorf("icon %+v, want the run-out provider at 40 %%", v.Icon)
	}
}

func TestRenderMoreSessions(t *testing.T) {
	g := render(loadSnapshot(t, "many"), time.UTC, SessionsAuto, 5).Groups[0]
	if len(g.Sessions) != 5 || g.More != "    +5 sessions" {
		t.Errorf("%d rows and %q, want 5 rows and +5 sessions", len(g.Sessions), g.More)
	}
	if !strings.HasPrefix(g.Sessions[0], "    app-7 8 m/h") || !strings.HasPrefix(g.Sessions[1], "    app-6 7 m/h") {
		t.Errorf("not ranked by m/h: %q", g.Sessions)
	}
	if g.Elsewhere != "    elsewhere 4 m/h (no local session)" {
		t.Errorf("elsewhere row %q", g.Elsewhere)
	}
	all := render(loadSnapshot(t, "many"), time.UTC, SessionsAlways, 20).Groups[0]
	if got := all.Sessions[len(all.Sessions)-2:]; got[0] != "    same (bbbbbbbb) · waiting" || got[1] != "    same (cccccccc) · waiting" {
		t.Errorf("sessions sharing a project name are not told apart: %q", got)
	}
}

// TestRenderWeeklyWorse: an exhausted weekly window blocks the provider even
// while its 5-hour window is on track; the icon and tooltip say so.
func TestRenderWeeklyWorse(t *testing.T) {
	v := render(loadSnapshot(t, "weekly"), time.UTC, SessionsAuto, 5)
	if want := "claude ~10 m/h (weekly exhausted until Sat 09:00)"; v.Tooltip != want {
		t.Errorf("tooltip %q, want %q", v.Tooltip, want)
	}
	if v.Icon != (iconKey{State: burn.Exhausted, Step: 100}) {
		t.Errorf("icon %+v, want the exhausted weekly window", v.Icon)
	}
	if g := v.Groups[0]; g.Header != "Claude 5h 30% · resets by 12:00" || g.Weekly != "  weekly exhausted · resets Sat 09:00" {
		t.Errorf("rows %q / %q", g.Header, g.Weekly)
	}
}

func TestWarningRow(t *testing.T) {
	if got := warning(nil); got != "" {
		t.Errorf("no warnings give %q", got)
	}
	long := strings.Repeat("é", 100)
	if got := warning([]string{long, "b", "c"}); got != "⚠ "+strings.Repeat("é", 69)+"… (+2 more)" {
		t.Errorf("got %q", got)
	}
}

func TestWorst(t *testing.T) {
	ps := []burn.ProviderStatus{
		{Provider: burn.Claude, State: burn.OnTrack, Window: &burn.WindowStatus{UsedPercent: 90}},
		{Provider: burn.Codex, State: burn.RunoutBeforeReset, Window: &burn.WindowStatus{UsedPercent: 10}},
	}
	if w := worst(ps); w.Provider != burn.Codex {
		t.Errorf("icon shows %s, want the provider running out", w.Provider)
	}
	if worst(nil) != nil {
		t.Error("worst of nothing is not nil")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{duration(25 * time.Minute), "25 min"},
		{duration(29 * time.Second), "<1 min"},
		{duration(65 * time.Minute), "1 h 5 min"},
		{duration(2 * time.Hour), "2 h"},
		{duration(51 * time.Hour), "2 d 3 h"},
		{duration(48 * time.Hour), "2 d"},
		{figure.Percent(99.7), "99.7%"},
		{figure.Percent(100), "100%"},
		{figure.Percent(-3), "0%"},
		{figure.Percent(42.5), "42.5%"},
		{perHour(0.2), "<1 m/h"},
		{perHour(0), "0 m/h"},
		{perHour(37.6), "38 m/h"},
		{providerName("gemini"), "Gemini"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// FuzzRender feeds arbitrary snapshots to the renderer: it must not panic and
// must stay within the rows the menu has.
func FuzzRender(f *testing.F) {
	for _, name := range []string{"runout", "ontrack", "exhausted", "many", "weekly", "empty"} {
		b, err := os.ReadFile(filepath.Join("testdata", "snapshots", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		var s burn.Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		mode := []string{SessionsAuto, SessionsAlways, SessionsNever}[m%3]
		rows := int(m%7) + 1
		v := render(s, time.UTC, mode, rows)
		for _, g := range v.Groups {
			if len(g.Sessions) > rows {
				t.Fatalf("%d session rows for %d slots", len(g.Sessions), rows)
			}
		}
		iconPNG(v.Icon)
		for _, p := range s.Providers {
			n := burn.Notice{Kind: burn.NoticeBurningFast, Provider: p.Provider, Window: burn.FiveHour, RunoutAt: p.RunoutAt}
			if p.Window != nil {
				n.ResetsAt = p.Window.ResetsAt
			}
			if len(s.Sessions) > 0 {
				n.Top = &s.Sessions[0]
			}
			NoticeText(n, time.UTC)
		}
	})
}
