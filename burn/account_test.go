package burn

import (
	"testing"
	"time"
)

// Two Claude logins: samples of both reach runway. The windows are the
// account's whose sample is newest; the other account's reset and percent
// never mix in (the later reset won, over the other account's percent).
func TestSamplesOfTwoAccountsDoNotMix(t *testing.T) {
	now := at(10 * time.Minute)
	resetA, resetB := at(2*time.Hour), at(4*time.Hour+30*time.Minute)
	var in []Sample
	for i := range 10 {
		obs := at(time.Duration(i) * time.Minute)
		a := smp(Claude, 300, 30+float64(i)*0.2, resetA, obs, SourceStatusline)
		a.Account = "aaaa1111"
		b := smp(Claude, 300, 80+float64(i), resetB, obs.Add(20*time.Second), SourceStatusline)
		b.Account = "bbbb2222"
		in = append(in, a, b)
	}
	last := smp(Claude, 300, 32, resetA, at(10*time.Minute), SourceStatusline)
	last.Account = "aaaa1111"
	in = append(in, last)
	s := Compute(Input{Now: now, Samples: in}, DefaultConfig())
	p := mustProvider(t, s, Claude)
	if p.Window == nil || p.Window.UsedPercent != 32 || p.Window.ResetsAt == nil || !p.Window.ResetsAt.Equal(resetA) {
		t.Fatalf("window %+v, want account A's: 32 %% resetting at %v", p.Window, resetA)
	}
	if p.State != OnTrack {
		t.Errorf("state %s: account B's 80-89 %% leaked into A's burn (%+v)", p.State, p.Burn)
	}
	// A sample without an account (a source that does not say) still counts.
	anon := smp(Claude, 300, 33, resetA, at(10*time.Minute+30*time.Second), SourceStatusline)
	s = Compute(Input{Now: now.Add(time.Minute), Samples: append(in, anon)}, DefaultConfig())
	if p := mustProvider(t, s, Claude); p.Window.UsedPercent != 33 {
		t.Errorf("a sample without an account was dropped: %+v", p.Window)
	}
}
