package burn

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/snapshot.json")

// exampleInput is a small but complete situation: Claude burning fast with
// two sessions (one with a subagent) and an idle one, Codex measured from
// its rollout with a weekly window, and a warning.
func exampleInput() Input {
	now := at(3 * time.Hour)
	reset := now.Add(2 * time.Hour)
	return Input{
		Now: now,
		Samples: append(statuslineAccount(60, mhPPS(150, 300), reset, now),
			smp(Claude, 10080, 41.5, now.Add(50*time.Hour), now.Add(-time.Minute), SourceStatusline),
			smp(Codex, 300, 12, now.Add(4*time.Hour), now.Add(-20*time.Second), SourceCodexLog),
			smp(Codex, 10080, 3, now.Add(100*time.Hour), now.Add(-20*time.Second), SourceCodexLog),
		),
		Events: concat(
			steady(Claude, "7d0c6a52", "", now.Add(-10*time.Minute), now, 12*time.Second, 2000),
			steady(Claude, "7d0c6a52", "a4f19c2", now.Add(-5*time.Minute), now.Add(-4*time.Second), 9*time.Second, 500),
			steady(Claude, "2b9e4f10", "", now.Add(-10*time.Minute), now.Add(-6*time.Second), 15*time.Second, 1000),
			steady(Claude, "9f8e7d6c", "", now.Add(-2*time.Hour), now.Add(-100*time.Minute), 30*time.Second, 300),
			steady(Codex, "019a2b3c", "", now.Add(-10*time.Minute), now.Add(-3*time.Second), 20*time.Second, 400),
		),
		Warnings: []string{"quota: claude usage endpoint answered 429; next try 14:05"},
	}
}

// TestSnapshotJSONGolden pins the stable JSON form, every field name
// surfaces and scripts read, and that it reads back.
func TestSnapshotJSONGolden(t *testing.T) {
	in := exampleInput()
	in.Now = in.Now.In(time.FixedZone("CET", 3600)) // the snapshot is in UTC whatever now's zone
	s := Compute(in, DefaultConfig())
	if s.At.Location() != time.UTC {
		t.Errorf("at is in %v", s.At.Location())
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "snapshot.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./burn -run Golden -update)", err)
	}
	if !sameJSON(t, got, want) {
		t.Fatalf("snapshot JSON changed; if that is intended run go test ./burn -run Golden -update\ngot:\n%s", got)
	}
	// What is read back keeps every figure to within the rounding.
	back := roundTrip(t, s)
	for i, x := range s.Sessions {
		if d := x.QuotaMinutesPerHour - back.Sessions[i].QuotaMinutesPerHour; d > 1e-4 || d < -1e-4 {
			t.Errorf("session %s m/h %v came back as %v", x.ID, x.QuotaMinutesPerHour, back.Sessions[i].QuotaMinutesPerHour)
		}
	}
}

func TestSnapshotJSONIsAlwaysValid(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 7200))
	s := Snapshot{
		At: tp,
		Providers: []ProviderStatus{{
			Provider: Claude,
			Window:   &WindowStatus{UsedPercent: nan, ResetsAt: &tp, Burn: Burn{PercentPerS: inf}},
			Burn:     Burn{PercentPerS: nan, QuotaMinutesPerHour: -inf},
			RunoutAt: &tp, ElsewhereQuotaMinutesPerHour: nan,
		}},
		Sessions: []SessionStatus{{TokensPerS: nan, QuotaMinutesPerHour: inf, PauseGainMinutes: nan}},
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if bytes.Contains(b, []byte("+02:00")) || !bytes.Contains(b, []byte(`"warnings":[]`)) {
		t.Fatalf("json = %s", b)
	}
	b, err = json.Marshal(Snapshot{})
	if err != nil || !bytes.Contains(b, []byte(`"providers":[],"sessions":[],"warnings":[]`)) {
		t.Fatalf("empty snapshot json = %s, %v", b, err)
	}
}

// sameJSON compares two JSON documents, numbers to nine significant digits:
// platforms that fuse multiply-adds differ in the last bits.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return sameValue(x, y)
}

func sameValue(x, y any) bool {
	switch x := x.(type) {
	case float64:
		y, ok := y.(float64)
		return ok && math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	case []any:
		y, ok := y.([]any)
		return ok && slices.EqualFunc(x, y, sameValue)
	case map[string]any:
		y, ok := y.(map[string]any)
		return ok && maps.EqualFunc(x, y, sameValue)
	}
	return reflect.DeepEqual(x, y)
}

func TestHelpers(t *testing.T) {
	now := at(time.Hour)
	s := Compute(Input{Now: now, Samples: []Sample{
		smp(Claude, 300, 20, now.Add(4*time.Hour), now, SourceStatusline),
		smp(Claude, 10080, 100, now.Add(24*time.Hour), now, SourceStatusline),
		smp(Codex, 10080, 10, now.Add(72*time.Hour), now, SourceCodexLog),
	}}, DefaultConfig())
	c, x := s.Provider(Claude), s.Provider(Codex)
	if c == nil || x == nil || s.Provider("gemini") != nil {
		t.Fatalf("providers %+v", s.Providers)
	}
	if c.State != OnTrack || c.Worst() != Exhausted || x.Worst() != OnTrack {
		t.Errorf("claude %s / worst %s, codex worst %s", c.State, c.Worst(), x.Worst())
	}
	// A weekly-only provider's window is decided once, not as window and weekly.
	ns, _ := Decide(Compute(Input{Now: now, Samples: []Sample{smp(Codex, 10080, 95, now.Add(72*time.Hour), now, SourceCodexLog)}}, DefaultConfig()), NoticeMemory{}, DefaultConfig())
	if len(ns) != 1 || ns[0].Kind != NoticeLow || ns[0].Window != Weekly {
		t.Errorf("notices %+v", ns)
	}
}

func TestRoundKeepsHugeValues(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{108.00000000000003, 108}, {1e300, 1e300}, {-1e300, -1e300}, {math.NaN(), 0}, {math.Inf(1), 0}, {0.123456, 0.1235},
	} {
		if got := round(c.x, 4); got != c.want {
			t.Errorf("round(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// TestJSONTinyRate: a rate so small that rounding it to 6 significant
// digits asks for more than 308 decimals still encodes.
func TestJSONTinyRate(t *testing.T) {
	roundTrip(t, Compute(Input{Now: t0, Samples: []Sample{
		{ObservedAt: t0, Provider: Claude, Window: Weekly, UsedPercent: 1.9e-298, Source: SourceStatusline},
	}}, DefaultConfig()))
}

// Unknown is not zero: without an account percent the burn figures and the
// shares are null; with one, numbers, and the pace that lasts to the reset.
func TestUnknownFiguresAreNull(t *testing.T) {
	now := at(time.Hour)
	evs := steady(Claude, "s", "", now.Add(-5*time.Minute), now.Add(-time.Second), 10*time.Second, 2000)
	field := func(s Snapshot) (provider, burn, session map[string]any) {
		t.Helper()
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Providers []map[string]any `json:"providers"`
			Sessions  []map[string]any `json:"sessions"`
		}
		if err := json.Unmarshal(b, &m); err != nil || len(m.Providers) != 1 || len(m.Sessions) != 1 {
			t.Fatalf("%v: %s", err, b)
		}
		return m.Providers[0], m.Providers[0]["burn"].(map[string]any), m.Sessions[0]
	}
	p, b, x := field(Compute(Input{Now: now, Events: evs}, DefaultConfig()))
	for what, v := range map[string]any{
		"burn.quota_minutes_per_hour":             b["quota_minutes_per_hour"],
		"burn.percent_per_s":                      b["percent_per_s"],
		"burn.sustainable_quota_minutes_per_hour": b["sustainable_quota_minutes_per_hour"],
		"elsewhere_quota_minutes_per_hour":        p["elsewhere_quota_minutes_per_hour"],
		"session quota_minutes_per_hour":          x["quota_minutes_per_hour"],
	} {
		if v != nil {
			t.Errorf("no percent: %s = %v, want null", what, v)
		}
	}
	reset := now.Add(90 * time.Minute)
	p, b, x = field(Compute(Input{Now: now, Events: evs, Samples: []Sample{
		smp(Claude, 300, 57, reset, now.Add(-2*time.Minute), SourceStatusline),
		smp(Claude, 300, 58, reset, now, SourceStatusline),
	}}, DefaultConfig()))
	if _, ok := x["quota_minutes_per_hour"].(float64); !ok {
		t.Errorf("with a percent: session quota_minutes_per_hour = %v, want a number", x["quota_minutes_per_hour"])
	}
	if _, ok := p["elsewhere_quota_minutes_per_hour"].(float64); !ok {
		t.Errorf("with a percent: elsewhere = %v, want a number", p["elsewhere_quota_minutes_per_hour"])
	}
	// 42 % left over 90 minutes: 126 quota minutes over 1.5 h lasts at 84 m/h.
	if v, ok := b["sustainable_quota_minutes_per_hour"].(float64); !ok || math.Abs(v-84) > 1 {
		t.Errorf("sustainable = %v, want about 84", b["sustainable_quota_minutes_per_hour"])
	}
}
