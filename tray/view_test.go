package tray

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/text"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

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
	fmt.Fprintf(&b, "label: %s\ntitle: %s\ntooltip: %s\nicon: %s %q %d\n", v.Label, v.Title, v.Tooltip, v.Icon.Tone, v.Icon.Text, v.Icon.Step)
	for _, g := range v.Groups {
		b.WriteString("--\n")
		for _, s := range g.rows(len(g.Sessions)) {
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

// golden compares got with the file at path, which -update rewrites; diff
// says how they differ ("" when alike), byte for byte when nil.
func golden(t *testing.T, path string, got []byte, diff func(got, want []byte) string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./tray -run %s -update writes it)", err, t.Name())
	}
	if diff == nil {
		diff = func(got, want []byte) string {
			if bytes.Equal(got, want) {
				return ""
			}
			return fmt.Sprintf("got:\n%s\nwant:\n%s", got, want)
		}
	}
	if d := diff(got, want); d != "" {
		t.Errorf("%s differs (go test ./tray -run %s -update rewrites it): %s", path, t.Name(), d)
	}
}

// TestRenderGolden renders each snapshot in every session list mode: the
// golden files pin every row, the label, the tooltip and the icon.
func TestRenderGolden(t *testing.T) {
	for _, name := range []string{"runout", "ontrack", "exhausted", "many", "weekly", "empty"} {
		t.Run(name, func(t *testing.T) {
			s := loadSnapshot(t, name)
			var out strings.Builder
			for _, mode := range []string{SessionsAuto, SessionsAlways, SessionsNever} {
				fmt.Fprintf(&out, "== %s\n%s", mode, dump(render(s, time.UTC, mode, 5, false)))
			}
			golden(t, filepath.Join("testdata", "snapshots", name+".txt"), []byte(out.String()), nil)
		})
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
		v := render(s, time.UTC, mode, rows, m%2 == 0)
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
			text.Notice(n, s.At, time.UTC)
		}
	})
}

// TestSessionRows: the menu answers for every kind of session. A waiting
// session keeps its (fading, so "~") share and what pausing it buys; an
// idle one says so; a share of an estimated burn carries "~"; without an
// account percent a session shows its token rate, and the header says
// which window has no percent, so a weekly figure below does not
// contradict it.
func TestSessionRows(t *testing.T) {
	at := *at("2026-03-02T14:00:00Z")
	in := func(d time.Duration) *time.Time { x := at.Add(d); return &x }
	claude := burn.ProviderStatus{Provider: burn.Claude, State: burn.RunoutBeforeReset, RunoutAt: in(20 * time.Minute),
		Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: 80, ResetsAt: in(time.Hour), Fresh: true, ObservedAt: at,
			State: burn.RunoutBeforeReset, RunoutAt: in(20 * time.Minute), Burn: burn.Burn{QuotaMinutesPerHour: 70, SustainableQuotaMinutesPerHour: 60, Method: burn.MethodMeasured}},
		Burn: burn.Burn{QuotaMinutesPerHour: 70, SustainableQuotaMinutesPerHour: 60, Method: burn.MethodMeasured}}
	codex := burn.ProviderStatus{Provider: burn.Codex, State: burn.OnTrack,
		Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: 10, ResetsAt: in(3 * time.Hour), Fresh: true, ObservedAt: at,
			State: burn.OnTrack, Burn: burn.Burn{QuotaMinutesPerHour: 19, SustainableQuotaMinutesPerHour: 90, Method: burn.MethodAverage}},
		Burn: burn.Burn{QuotaMinutesPerHour: 19, SustainableQuotaMinutesPerHour: 90, Method: burn.MethodAverage}}
	gemini := burn.ProviderStatus{Provider: "gemini", State: burn.NoData,
		Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, State: burn.NoData},
		Weekly: &burn.WindowStatus{Class: burn.Weekly, Minutes: 10080, UsedPercent: 26, State: burn.OnTrack, ResetsAt: in(48 * time.Hour)}}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{claude, codex, gemini}, Sessions: []burn.SessionStatus{
		{Provider: burn.Claude, ID: "a1", Project: "/src/web", RateKind: burn.Measured, QuotaMinutesPerHour: 40, TokensPerS: 900, PauseGainMinutes: 25},
		{Provider: burn.Claude, ID: "b2", Project: "/src/shop-api", RateKind: burn.Waiting, QuotaMinutesPerHour: 65, PauseLastsToReset: true, PauseGainMinutes: 40},
		{Provider: burn.Claude, ID: "c3", Project: "/src/docs", RateKind: burn.Waiting},
		{Provider: burn.Claude, ID: "d4", Project: "/src/old", RateKind: burn.Idle},
		{Provider: burn.Codex, ID: "e5", Project: "/src/tool", RateKind: burn.Measured, QuotaMinutesPerHour: 19, TokensPerS: 300},
		{Provider: "gemini", ID: "f6", Project: "/src/ml", RateKind: burn.Measured, TokensPerS: 1234},
		{Provider: "gemini", ID: "f7", Project: "/src/nb", RateKind: burn.Waiting},
	}}
	v := render(s, time.UTC, SessionsAlways, 10, false)
	want := [][]string{
		{"Claude 5h 80% · resets 15:00", "  70m/h · lasts at ≤60 · runs out 14:20, 40m before the reset", "",
			"    web 40m/h · pause → +25m",
			"    shop-api ~65m/h · waiting · pause → lasts",
			"    docs · waiting",
			"    old · idle"},
		{"Codex 5h 10% · resets 17:00", "  ~19m/h · lasts at ≤90 · on track to the reset", "",
			"    tool ~19m/h"},
		{"Gemini 5h · no percent yet", "  1.2k tok/s · no percent to turn into m/h", "  weekly 26% · resets Wed 14:00",
			"    ml 1.2k tok/s",
			"    nb · waiting"},
	}
	for i, g := range v.Groups {
		got := append([]string{g.Header, g.Runout, g.Weekly}, g.Sessions...)
		if !slices.Equal(got, want[i]) {
			t.Errorf("group %d:\n got %q\nwant %q", i, got, want[i])
		}
	}
	tip := "Claude 5h 80% · 70m/h · lasts at ≤60 · runs out in 20m · resets in 1h00m\n" +
		"Codex 5h 10% · ~19m/h · lasts at ≤90 · on track to the reset · resets in 3h00m\n" +
		"Gemini 5h: no percent yet · 1.2k tok/s · weekly 26%"
	if v.Tooltip != tip {
		t.Errorf("tooltip:\n%s\nwant:\n%s", v.Tooltip, tip)
	}
}

func TestShortTip(t *testing.T) {
	tip := "Claude 5h 42.3% · 38m/h · runs out in 55m · resets in 1h20m\nCodex 5h 12% · ~6.0m/h · lasts to the reset · resets in 3h30m · weekly 30%"
	got := shortTip(tip, 127)
	want := "Claude 5h 42.3% · 38m/h · runs out in 55m\nCodex 5h 12% · ~6.0m/h · lasts to the reset · weekly 30%"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := shortTip(strings.Repeat("é", 200), 127); len([]rune(got)) != 127 || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to %d runes: %q", len([]rune(got)), got)
	}
	if shortTip("short", 127) != "short" {
		t.Error("a short tip changed")
	}
}

// Unknown is not zero: a window that has reset, with no sample of the new
// one, has no burn, so a session burning into it shows its token rate, not
// "0.0m/h".
func TestSessionRowAfterReset(t *testing.T) {
	at := *at("2026-03-02T14:00:00Z")
	reset := at.Add(-time.Minute)
	p := burn.ProviderStatus{Provider: burn.Claude, State: burn.NoData, Burn: burn.Burn{Method: burn.MethodNone},
		Window: &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, Reset: true, ResetsAt: &reset, State: burn.NoData}}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{p}, Sessions: []burn.SessionStatus{
		{Provider: burn.Claude, ID: "a1", Project: "/src/web", RateKind: burn.Measured, TokensPerS: 900}}}
	g := render(s, time.UTC, SessionsAlways, 10, false).Groups[0]
	if len(g.Sessions) != 1 || g.Sessions[0] != "    web 900 tok/s" {
		t.Errorf("rows %q, want the token rate", g.Sessions)
	}
}

// Two Claude logins are two groups, each named by its login and listing
// its own sessions; a notification names the login too.
func TestRenderTwoLogins(t *testing.T) {
	s := loadSnapshot(t, "runout")
	claude := *s.Provider(burn.Claude)
	work, home := claude, claude
	work.Account, work.AccountLabel = "aaaa1111", "work"
	home.Account, home.AccountLabel = "bbbb2222", "home"
	for i := range s.Sessions {
		if s.Sessions[i].Provider == burn.Claude {
			s.Sessions[i].Account = work.Account
		}
	}
	s.Providers = append([]burn.ProviderStatus{work, home}, s.Providers[1:]...)
	v := render(s, time.UTC, SessionsAuto, 5, false)
	if !strings.HasPrefix(v.Groups[0].Header, "Claude (work) 5h") || !strings.HasPrefix(v.Groups[1].Header, "Claude (home) 5h") {
		t.Errorf("headers %q, %q", v.Groups[0].Header, v.Groups[1].Header)
	}
	if len(v.Groups[0].Sessions) == 0 || len(v.Groups[1].Sessions) != 0 {
		t.Errorf("work's sessions %q, home's %q: each login lists its own", v.Groups[0].Sessions, v.Groups[1].Sessions)
	}
	if lines := strings.Split(v.Tooltip, "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "Claude (home) 5h") {
		t.Errorf("tooltip %q", v.Tooltip)
	}
	summary, _ := text.Notice(burn.Notice{Kind: burn.NoticeLow, Provider: burn.Claude, Window: burn.FiveHour, UsedPercent: 91,
		Account: home.Account, AccountLabel: "home"}, s.At, time.UTC)
	if !strings.HasPrefix(summary, "Claude (home) 5h") {
		t.Errorf("notification %q names no login", summary)
	}
}
