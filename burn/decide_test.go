package burn

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"
)

// windowAt is a live 5-hour window status as Compute would give it.
func windowAt(now time.Time, used float64, reset time.Time, runoutIn time.Duration, cfg Config) *WindowStatus {
	w := &WindowStatus{Class: FiveHour, Minutes: 300, UsedPercent: used, ResetsAt: &reset, Source: SourceStatusline, ObservedAt: now, Fresh: true}
	if runoutIn > 0 && now.Add(runoutIn).Before(reset) {
		r := now.Add(runoutIn)
		w.RunoutAt = &r
	}
	w.State = verdict(used, w.RunoutAt, cfg)
	return w
}

func snapOf(now time.Time, ws ...*WindowStatus) Snapshot {
	p := ProviderStatus{Provider: Claude, Window: ws[0], State: ws[0].State, RunoutAt: ws[0].RunoutAt}
	if len(ws) > 1 {
		p.Weekly = ws[1]
	}
	return Snapshot{At: now, Providers: []ProviderStatus{p}, Sessions: []SessionStatus{
		{Provider: Claude, ID: "s1", QuotaMinutesPerHour: 80, PauseLastsToReset: true},
	}}
}

func kinds(ns []Notice) string {
	var b []string
	for _, n := range ns {
		k := string(n.Kind)
		if n.UrgencyMinutes > 0 {
			k += "/" + strconv.Itoa(n.UrgencyMinutes)
		}
		b = append(b, k)
	}
	return strings.Join(b, ",")
}

func TestDecideBurningFast(t *testing.T) {
	cfg := DefaultConfig()
	reset := at(5 * time.Hour)
	type step struct {
		after  time.Duration // since t0
		used   float64
		runout time.Duration // 0: on track
		want   string
	}
	tests := []struct {
		name   string
		steps  []step
		forget bool // no burning-fast notice is delivered: ForgetCovered the low it covered
	}{
		{"on track says nothing", []step{{0, 40, 0, ""}, {time.Minute, 41, 0, ""}}, false},
		{"each bucket once, most urgent last", []step{
			{0, 40, 55 * time.Minute, "burning_fast/60"},
			{time.Minute, 41, 54 * time.Minute, ""},
			{2 * time.Minute, 42, 29 * time.Minute, "burning_fast/30"},
			{3 * time.Minute, 43, 28 * time.Minute, ""},
			{4 * time.Minute, 44, 9 * time.Minute, "burning_fast/10"},
			{5 * time.Minute, 45, 8 * time.Minute, ""},
		}, false},
		{"a more urgent bucket covers the less urgent ones", []step{
			{0, 40, 25 * time.Minute, "burning_fast/30"},
			{time.Minute, 40, 45 * time.Minute, ""},
		}, false},
		{"a run-out over an hour away is no notice", []step{{0, 40, 61 * time.Minute, ""}}, false},
		{"flapping does not re-arm", []step{
			{0, 40, 55 * time.Minute, "burning_fast/60"},
			{time.Minute, 40, 0, ""},
			{10 * time.Minute, 40, 0, ""},
			{11 * time.Minute, 40, 55 * time.Minute, ""},
			{12 * time.Minute, 40, 0, ""},
			{20 * time.Minute, 40, 55 * time.Minute, ""},
		}, false},
		{"a calm spell of 15 minutes re-arms", []step{
			{0, 40, 55 * time.Minute, "burning_fast/60"},
			{time.Minute, 40, 0, ""},
			{16 * time.Minute, 40, 0, ""},
			{17 * time.Minute, 40, 55 * time.Minute, "burning_fast/60"},
		}, false},
		{"low once", []step{
			{0, 90, 0, "low"},
			{time.Minute, 91, 0, ""},
		}, false},
		{"burning fast covers low", []step{
			{0, 91, 20 * time.Minute, "burning_fast/30"},
			{time.Minute, 92, 0, ""},
		}, false},
		{"low after burning fast", []step{
			{0, 80, 50 * time.Minute, "burning_fast/60"},
			{time.Minute, 91, 40 * time.Minute, "low"},
		}, false},
		{"exhausted once, covering the rest", []step{
			{0, 100, 0, "exhausted"},
			{time.Minute, 100, 0, ""},
			{2 * time.Minute, 95, 5 * time.Minute, ""},
		}, false},
		// A "low" sent before a burning-fast notice was not covered by it;
		// forgetting it would send "low" again at every undelivered bucket.
		{"forgetting what a burning-fast notice covered keeps what was sent", []step{
			{0, 90, 0, "low"},
			{time.Minute, 91, 50 * time.Minute, "burning_fast/60"},
			{2 * time.Minute, 92, 45 * time.Minute, ""},
			{3 * time.Minute, 93, 25 * time.Minute, "burning_fast/30"},
			{4 * time.Minute, 94, 24 * time.Minute, ""},
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mem NoticeMemory
			for _, st := range tt.steps {
				now := at(st.after)
				ns, next := Decide(snapOf(now, windowAt(now, st.used, reset, st.runout, cfg)), mem, cfg)
				if got := kinds(ns); got != st.want {
					t.Fatalf("at +%v: notices %q, want %q", st.after, got, st.want)
				}
				mem = next
				for _, n := range ns {
					if tt.forget && n.Kind == NoticeBurningFast {
						mem.ForgetCovered(n.Key, NoticeLow)
					}
				}
			}
		})
	}
}

func TestDecideNoticeCarriesTheMessage(t *testing.T) {
	cfg := DefaultConfig()
	now, reset := t0, at(time.Hour)
	ns, mem := Decide(snapOf(now, windowAt(now, 80, reset, 8*time.Minute, cfg)), NoticeMemory{}, cfg)
	if len(ns) != 1 {
		t.Fatalf("notices = %+v", ns)
	}
	n := ns[0]
	if n.Kind != NoticeBurningFast || n.UrgencyMinutes != 10 || !n.Critical || n.Provider != Claude ||
		n.Window != FiveHour || n.WindowMinutes != 300 || n.UsedPercent != 80 ||
		!n.ResetsAt.Equal(reset) || !n.RunoutAt.Equal(now.Add(8*time.Minute)) || n.Top == nil || n.Top.ID != "s1" {
		t.Fatalf("notice = %+v", n)
	}
	if n.Key != "claude/5h/2026-11-20T11:00:00Z/burning_fast/10" {
		t.Errorf("key = %q", n.Key)
	}
	if _, ok := mem.Sent[n.Key]; !ok || len(mem.Sent) != 3 {
		t.Errorf("memory = %v, want the 10, 30 and 60 buckets", mem.Sent)
	}
}

func TestDecideKeyToleratesJitter(t *testing.T) {
	cfg := DefaultConfig()
	reset := at(5*time.Hour + 4*time.Minute + 50*time.Second) // near a rounding edge
	ns, mem := Decide(snapOf(t0, windowAt(t0, 40, reset, 50*time.Minute, cfg)), NoticeMemory{}, cfg)
	if len(ns) != 1 {
		t.Fatalf("notices = %+v", ns)
	}
	for _, j := range []time.Duration{-120 * time.Second, -30 * time.Second, 20 * time.Second, 120 * time.Second} {
		now := at(time.Minute)
		ns, _ := Decide(snapOf(now, windowAt(now, 41, reset.Add(j), 49*time.Minute, cfg)), mem, cfg)
		if len(ns) != 0 {
			t.Errorf("reset moved by %v: sent again %+v", j, ns)
		}
	}
	// The next instance, five hours on, is another window.
	now := reset.Add(time.Hour)
	ns, _ = Decide(snapOf(now, windowAt(now, 40, reset.Add(5*time.Hour), 50*time.Minute, cfg)), mem, cfg)
	if len(ns) != 1 {
		t.Errorf("next instance: notices %+v", ns)
	}
}

func TestDecideReset(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NotifyReset = true
	reset := at(time.Hour)
	_, mem := Decide(snapOf(t0, windowAt(t0, 100, reset, 0, cfg)), NoticeMemory{}, cfg)

	over := func(now time.Time) Snapshot {
		w := &WindowStatus{Class: FiveHour, Minutes: 300, ResetsAt: &reset, Source: SourceStatusline, ObservedAt: t0, Reset: true, State: NoData}
		return snapOf(now, w)
	}
	ns, next := Decide(over(at(61*time.Minute)), mem, cfg)
	if len(ns) != 1 || ns[0].Kind != NoticeReset || !ns[0].ResetsAt.Equal(reset) || ns[0].UsedPercent != 0 || ns[0].Top != nil {
		t.Fatalf("notices after the reset = %+v", ns)
	}
	if ns, _ := Decide(over(at(62*time.Minute)), next, cfg); len(ns) != 0 {
		t.Fatalf("reset sent twice: %+v", ns)
	}
	// A new instance's sample also says the old one reset.
	now := at(70 * time.Minute)
	ns, _ = Decide(snapOf(now, windowAt(now, 2, now.Add(5*time.Hour), 0, cfg)), mem, cfg)
	if len(ns) != 1 || ns[0].Kind != NoticeReset {
		t.Fatalf("notices in the new instance = %+v", ns)
	}
	// Old news is no news.
	if ns, _ := Decide(over(at(3*time.Hour)), mem, cfg); len(ns) != 0 {
		t.Fatalf("a reset two hours ago: %+v", ns)
	}
	// Optional.
	cfg.NotifyReset = false
	if ns, _ := Decide(over(at(61*time.Minute)), mem, cfg); len(ns) != 0 {
		t.Fatalf("reset sent while off: %+v", ns)
	}
}

func TestDecideOrderAndWeekly(t *testing.T) {
	cfg := DefaultConfig()
	now := t0
	weeklyReset := at(48 * time.Hour)
	weekly := &WindowStatus{Class: Weekly, Minutes: 10080, UsedPercent: 100, ResetsAt: &weeklyReset, ObservedAt: now, State: Exhausted}
	s := snapOf(now, windowAt(now, 85, at(time.Hour), 25*time.Minute, cfg), weekly)
	codex := windowAt(now, 92, at(2*time.Hour), 0, cfg)
	s.Providers = append(s.Providers, ProviderStatus{Provider: Codex, Window: codex, State: codex.State})
	ns, _ := Decide(s, NoticeMemory{}, cfg)
	if got := kinds(ns); got != "exhausted,burning_fast/30,low" {
		t.Fatalf("notices %q", got)
	}
	if ns[0].Window != Weekly || ns[0].Top != nil {
		t.Errorf("weekly notice = %+v (names no session: its figures are the 5-hour window's)", ns[0])
	}
	if ns[2].Provider != Codex {
		t.Errorf("low notice = %+v", ns[2])
	}
}

func TestDecideMemory(t *testing.T) {
	cfg := DefaultConfig()
	old := map[string]time.Time{"claude/5h/2026-11-01T10:00:00Z/low": at(-19 * 24 * time.Hour), "junk": t0}
	mem := NoticeMemory{Sent: old}
	_, next := Decide(snapOf(t0, windowAt(t0, 95, at(time.Hour), 0, cfg)), mem, cfg)
	if len(old) != 2 {
		t.Fatalf("Decide changed the caller's memory: %v", old)
	}
	if _, ok := next.Sent["claude/5h/2026-11-01T10:00:00Z/low"]; ok {
		t.Errorf("memory kept a 19-day-old entry: %v", next.Sent)
	}
	if _, ok := next.Sent["claude/5h/2026-11-20T11:00:00Z/low"]; !ok {
		t.Errorf("memory = %v", next.Sent)
	}
	_, next = Decide(Snapshot{At: t0}, NoticeMemory{}, cfg)
	if next.Sent == nil {
		t.Errorf("memory's map is nil")
	}
}

// A run-out projected from the average burn of a window whose reset was
// estimated is no reason to interrupt; the same figures with a reset a
// source gave, or with a measured burn, are.
func TestDecideGuessedRunoutIsQuiet(t *testing.T) {
	cfg := DefaultConfig()
	now := at(0)
	for _, c := range []struct {
		name      string
		estimated bool
		method    Method
		want      string
	}{
		{"estimated reset, average burn", true, MethodAverage, ""},
		{"estimated reset, measured burn", true, MethodMeasured, "burning_fast/30"},
		{"given reset, average burn", false, MethodAverage, "burning_fast/30"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := windowAt(now, 60, at(2*time.Hour), 25*time.Minute, cfg)
			w.ResetsAtEstimated, w.Burn.Method = c.estimated, c.method
			got, _ := Decide(snapOf(now, w), NoticeMemory{}, cfg)
			if k := kinds(got); k != c.want {
				t.Errorf("notices %q, want %q", k, c.want)
			}
		})
	}
	// Low still notifies: it is read off the used percent, not projected.
	w := windowAt(now, 95, at(2*time.Hour), 25*time.Minute, cfg)
	w.ResetsAtEstimated, w.Burn.Method = true, MethodAverage
	if got, _ := Decide(snapOf(now, w), NoticeMemory{}, cfg); kinds(got) != "low" {
		t.Errorf("low window with a guessed run-out: notices %q, want low", kinds(got))
	}
}

// TestForgetCovered: a burning-fast notice the user does not get covers
// nothing. Forgetting the "low" Decide marked with it lets "low" come on
// its own; the "low" of another instance, window or provider, and the
// burning-fast buckets, stay remembered.
func TestForgetCovered(t *testing.T) {
	cfg := DefaultConfig()
	reset := at(5 * time.Hour)
	now := at(0)
	ns, mem := Decide(snapOf(now, windowAt(now, 91, reset, 20*time.Minute, cfg)), NoticeMemory{}, cfg)
	if kinds(ns) != "burning_fast/30" {
		t.Fatalf("decided %q, want burning_fast/30", kinds(ns))
	}
	if ns[0].Key != "claude/5h/2026-11-20T15:00:00Z/burning_fast/30" {
		t.Fatalf("key %q", ns[0].Key)
	}
	low := "claude/5h/2026-11-20T15:00:00Z/low"
	if _, ok := mem.Sent[low]; !ok {
		t.Fatalf("Decide did not mark %s as covered: %v", low, mem.Sent)
	}
	others := []string{
		"claude/5h/2026-11-20T20:00:00Z/low",     // the next instance
		"claude/weekly/2026-11-20T15:00:00Z/low", // the weekly window
		"codex/5h/2026-11-20T15:00:00Z/low",      // another provider
	}
	for _, k := range others {
		mem.Sent[k] = now
	}
	before := maps.Clone(mem.Sent)

	for _, bad := range []string{"", "claude/5h", "claude/5h/not-a-time/burning_fast/30", "a/b/c/d/e/f"} {
		mem.ForgetCovered(bad, NoticeLow)
		if !maps.Equal(mem.Sent, before) {
			t.Fatalf("ForgetCovered(%q) changed the memory: %v", bad, mem.Sent)
		}
	}

	mem.ForgetCovered(ns[0].Key, NoticeLow)
	delete(before, low)
	if !maps.Equal(mem.Sent, before) {
		t.Fatalf("after forgetting %s: %v, want %v", low, mem.Sent, before)
	}

	later := now.Add(time.Minute)
	ns, _ = Decide(snapOf(later, windowAt(later, 92, reset, 19*time.Minute, cfg)), mem, cfg)
	if kinds(ns) != "low" {
		t.Errorf("decided %q after forgetting the covered low, want low", kinds(ns))
	}
}

// After a slow period the statusline is fed +1 % every 32 s (about 337 m/h):
// the first burning-fast notice goes out within two minutes, near the true run-out.
func TestNoticeFollowsPaceChange(t *testing.T) {
	reset := at(3 * time.Hour)
	change := at(0)
	var samples []Sample
	// 20 m/h for 40 minutes: 0.0667 % a minute, from 57.3 %.
	slow := mhPPS(20, 300)
	used := 60.0
	for d := -40 * time.Minute; d < 0; d += 32 * time.Second {
		u := used + slow*d.Seconds()
		samples = append(samples, smp(Claude, 300, float64(int(u*10))/10, reset, at(d), SourceStatusline))
	}
	fast := 1.0 / 32 // percent per second
	trueRunout := change.Add(sec((100 - used) / fast))
	for d := 32 * time.Second; at(d).Before(trueRunout); d += 32 * time.Second {
		samples = append(samples, smp(Claude, 300, used+float64(d/(32*time.Second)), reset, at(d), SourceStatusline))
	}

	cfg := DefaultConfig()
	mem := NoticeMemory{}
	var first *Notice
	var firstAt time.Time
	var sentBuckets []int
	for d := -10 * time.Minute; d <= 15*time.Minute && at(d).Before(trueRunout); d += 10 * time.Second {
		now := at(d)
		snap := Compute(Input{Now: now, Samples: observedBy(samples, now)}, cfg)
		var out []Notice
		out, mem = Decide(snap, mem, cfg)
		for _, n := range out {
			if n.Kind != NoticeBurningFast {
				continue
			}
			sentBuckets = append(sentBuckets, n.UrgencyMinutes)
			left := trueRunout.Sub(now).Minutes()
			if n.RunoutAt == nil {
				t.Fatalf("+%v: a burning-fast notice without a run-out", d)
			}
			// The bucket is the one the true run-out is in: never "60
			// minutes" with 20 left.
			if float64(n.UrgencyMinutes) < left || n.UrgencyMinutes > 10 && float64(n.UrgencyMinutes) > 2*left+10 {
				t.Errorf("+%v: bucket %d with %.0f min truly left", d, n.UrgencyMinutes, left)
			}
			if off := n.RunoutAt.Sub(trueRunout); off > 3*time.Minute || off < -3*time.Minute {
				t.Errorf("+%v: notice names run-out %s, true %s", d, n.RunoutAt.Format("15:04:05"), trueRunout.Format("15:04:05"))
			}
			if first == nil {
				n := n
				first, firstAt = &n, now
			}
		}
	}
	if first == nil {
		t.Fatal("no burning-fast notice")
	}
	t.Logf("first notice %v after the change: bucket %d, run-out %s (true %s); buckets sent %v",
		firstAt.Sub(change), first.UrgencyMinutes, first.RunoutAt.Format("15:04:05"), trueRunout.Format("15:04:05"), sentBuckets)
	if firstAt.Sub(change) > 2*time.Minute {
		t.Errorf("first notice %v after the change, want within 2 min", firstAt.Sub(change))
	}
}

// TestNoticePace: one notice per interval, a burst held back, critical
// ones never held and never counted.
func TestNoticePace(t *testing.T) {
	p := NoticePace{Every: 2 * time.Minute}
	fast, critical := Notice{Kind: NoticeBurningFast}, Notice{Kind: NoticeExhausted, Critical: true}
	for _, step := range []struct {
		n     Notice
		after time.Duration
		want  bool
	}{
		{fast, 0, true},
		{fast, time.Minute, false},
		{critical, time.Minute, true},
		{fast, 119 * time.Second, false},
		{fast, 2 * time.Minute, true},
		{fast, 3 * time.Minute, false},
	} {
		if got := p.Allow(step.n, at(step.after)); got != step.want {
			t.Errorf("%s after %v: allowed %v, want %v", step.n.Kind, step.after, got, step.want)
		}
	}
	var unpaced NoticePace
	for range 2 {
		if !unpaced.Allow(fast, at(0)) {
			t.Error("the zero value held a notice back")
		}
	}
}
