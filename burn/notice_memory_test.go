package burn

import (
	"maps"
	"testing"
	"time"
)

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

// TestForgetCoveredKeepsWhatWasSent: a "low" sent before the burning-fast
// notice was not covered by it; forgetting it would send "low" again at
// every bucket the user does not get.
func TestForgetCoveredKeepsWhatWasSent(t *testing.T) {
	cfg := DefaultConfig()
	reset := at(5 * time.Hour)
	var mem NoticeMemory
	steps := []struct {
		after  time.Duration
		used   float64
		runout time.Duration
		want   string
	}{
		{0, 90, 0, "low"},
		{time.Minute, 91, 50 * time.Minute, "burning_fast/60"},
		{2 * time.Minute, 92, 45 * time.Minute, ""},
		{3 * time.Minute, 93, 25 * time.Minute, "burning_fast/30"},
		{4 * time.Minute, 94, 24 * time.Minute, ""},
	}
	for _, st := range steps {
		now := at(st.after)
		var ns []Notice
		ns, mem = Decide(snapOf(now, windowAt(now, st.used, reset, st.runout, cfg)), mem, cfg)
		if kinds(ns) != st.want {
			t.Fatalf("+%v: decided %q, want %q", st.after, kinds(ns), st.want)
		}
		for _, n := range ns {
			if n.Kind == NoticeBurningFast { // turned off: not delivered
				mem.ForgetCovered(n.Key, NoticeLow)
			}
		}
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
