package text

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A window that lasts only at a burn figure its ticks prove behind shows
// "?" for its verdict, not ☺, and --long says why.
func TestLineUnproven(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	reset := at.Add(3 * time.Hour)
	w := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 40, State: burn.OnTrack, ResetsAt: &reset, Fresh: true, ObservedAt: at,
		Burn: burn.Burn{QuotaMinutesPerHour: 45, Method: burn.MethodMeasured, Settling: true, Behind: true}}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, Window: w, State: w.State, Burn: w.Burn}}}
	if got := Line(s, time.UTC); got != "claude 5h 40% ~45m/h ?" {
		t.Errorf("line %q", got)
	}
	if got := Report(s, time.UTC); !strings.Contains(got, "(measured, settling, the percent rises faster), not known to last") {
		t.Errorf("--long:\n%s", got)
	}
	w.Burn.Behind = false
	if got := Line(s, time.UTC); got != "claude 5h 40% ~45m/h ☺" {
		t.Errorf("settling, not behind: %q", got)
	}
	// Where the gate cannot tell (a source unread), the line does not say it lasts either.
	s.Unread = []string{"the sample log"}
	if got := Line(s, time.UTC); got != "claude 5h 40% ~45m/h ?" {
		t.Errorf("gate cannot tell: %q", got)
	}
}

// An unproven weekly window beside a 5-hour one that lasts is the one the
// line, the icon and the gate speak of.
func TestLineUnprovenWeekly(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	reset, week := at.Add(3*time.Hour), at.Add(72*time.Hour)
	five := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 10, State: burn.OnTrack, ResetsAt: &reset, Fresh: true, ObservedAt: at,
		Burn: burn.Burn{QuotaMinutesPerHour: 5, Method: burn.MethodMeasured}}
	weekly := &burn.WindowStatus{Class: burn.Weekly, UsedPercent: 60, State: burn.OnTrack, ResetsAt: &week, Fresh: true, ObservedAt: at,
		Burn: burn.Burn{QuotaMinutesPerHour: 20, Method: burn.MethodMeasured, Settling: true, Behind: true}}
	p := burn.ProviderStatus{Provider: burn.Claude, Window: five, Weekly: weekly, State: five.State, Burn: five.Burn}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{p}}
	if got := p.WorstWindow(); got != weekly {
		t.Errorf("worst window %+v, want the unproven weekly one", got)
	}
	if v, _ := burn.Gate(s); v != burn.CannotTell {
		t.Errorf("gate %v, want cannot tell", v)
	}
	if got := Line(s, time.UTC); !strings.Contains(got, "weekly 60% ~20m/h ?") {
		t.Errorf("line %q, want the weekly window with ?", got)
	}
}

// TestPauseColumnLinesUp: in now --long the pause column starts at one
// place on a measured and a waiting row ("measured" is one wider than
// "waiting": the column was off by one).
func TestPauseColumnLinesUp(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := burn.Snapshot{At: at,
		Providers: []burn.ProviderStatus{{Provider: burn.Claude}},
		Sessions: []burn.SessionStatus{
			{Provider: burn.Claude, ID: "a", Project: "web", RateKind: burn.Measured, QuotaMinutesPerHour: 40, TokensPerS: 900, PauseGainMinutes: 25},
			{Provider: burn.Claude, ID: "b", Project: "api", RateKind: burn.Waiting, QuotaMinutesPerHour: 17, PauseGainMinutes: 13},
		}}
	var cols []int
	for _, l := range strings.Split(Report(s, time.UTC), "\n") {
		if i := strings.Index(l, "pause →"); i >= 0 {
			cols = append(cols, len([]rune(l[:i])))
		}
	}
	if len(cols) != 2 || cols[0] != cols[1] {
		t.Errorf("pause → at columns %v:\n%s", cols, Report(s, time.UTC))
	}
}

// TestEmptySaysOneThing: a snapshot with no provider reads the same in
// runway now and now --long.
func TestEmptySaysOneThing(t *testing.T) {
	s := burn.Snapshot{At: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	if Line(s, time.UTC) != NoAgentData || Report(s, time.UTC) != NoAgentData+"\n" {
		t.Errorf("line %q, report %q", Line(s, time.UTC), Report(s, time.UTC))
	}
}

// A hundred sessions list the busiest reportSessions, then one line for the
// rest with what those still burning burn (now --long listed all 100).
func TestReportCapsSessions(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	reset := at.Add(2 * time.Hour)
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, State: burn.OnTrack,
		Burn:   burn.Burn{QuotaMinutesPerHour: 35, Method: burn.MethodMeasured},
		Window: &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 40, State: burn.OnTrack, ResetsAt: &reset, Fresh: true, ObservedAt: at}}}}
	for i := range 100 {
		kind := burn.Measured
		if i >= 90 {
			kind = burn.Idle
		}
		s.Sessions = append(s.Sessions, burn.SessionStatus{Provider: burn.Claude, ID: fmt.Sprintf("%08d-remote", i), Project: "/src/shop",
			Host: fmt.Sprintf("box%d", i), RateKind: kind, QuotaMinutesPerHour: 0.5, TokensPerS: 40})
	}
	r := Report(s, time.UTC)
	if n := strings.Count(r, " on box"); n != reportSessions {
		t.Errorf("%d session rows, want %d\n%s", n, reportSessions, r)
	}
	if !strings.Contains(r, "\n  +80 more (70 burning, 35m/h together)\n") {
		t.Errorf("no line for the rest:\n%s", r)
	}
	// Without the provider's burn the hidden sessions' share is unknown
	// too: no "0.0m/h together" beside the rows' "—".
	unknown := s
	unknown.Providers = []burn.ProviderStatus{s.Providers[0]}
	unknown.Providers[0].Burn = burn.Burn{Method: burn.MethodNone}
	unknown.Sessions = append([]burn.SessionStatus(nil), s.Sessions...)
	for i := range unknown.Sessions {
		unknown.Sessions[i].QuotaMinutesPerHour = 0
	}
	if r := Report(unknown, time.UTC); !strings.Contains(r, "\n  +80 more (70 burning)\n") {
		t.Errorf("unknown burn, the rest:\n%s", r)
	}
	s.Sessions = s.Sessions[:reportSessions]
	if r := Report(s, time.UTC); strings.Contains(r, "more") {
		t.Errorf("every session listed, yet:\n%s", r)
	}
}

// Every figure says what lasts (issue 24 item 9): beside the burn, the pace
// that lasts to the reset, on the line and in --long; a run-out's words are
// the same on both.
func TestLineSaysWhatLasts(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 25, 0, 0, time.UTC)
	reset, runout := at.Add(125*time.Minute), at.Add(100*time.Minute)
	w := &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 42, State: burn.RunoutBeforeReset, ResetsAt: &reset, Fresh: true, ObservedAt: at,
		RunoutAt: &runout, RunoutMinutesBeforeReset: 25,
		Burn: burn.Burn{QuotaMinutesPerHour: 104.4, SustainableQuotaMinutesPerHour: 83.5, Method: burn.MethodNowcast}}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, Window: w, State: w.State, Burn: w.Burn, RunoutAt: &runout}}}
	if got, want := Line(s, time.UTC), "claude 5h 42% 104m/h (lasts at ≤84) ▸14:05 (25m before the reset)"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if got, want := Report(s, time.UTC), "burn    104m/h (nowcast) · lasts at ≤84, runs out 14:05, 25m before the reset"; !strings.Contains(got, want) {
		t.Errorf("--long:\n%s\nwant %q", got, want)
	}
}

// Unknown is not zero (issue 24 item 8): without an account percent a
// session's share has no figure, and --long shows "—" as watch does, not
// "0.0m/h".
func TestLongSessionWithoutPercent(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := burn.Snapshot{At: at,
		Providers: []burn.ProviderStatus{{Provider: burn.Claude, State: burn.NoData, Burn: burn.Burn{Method: burn.MethodNone}}},
		Sessions:  []burn.SessionStatus{{Provider: burn.Claude, ID: "a", Project: "/src/shop-api", TokensPerS: 2000, RateKind: burn.Measured, LastEventAt: at}}}
	got := Report(s, time.UTC)
	if strings.Contains(got, "0.0m/h") || !strings.Contains(got, "shop-api") || !strings.Contains(got, "—") {
		t.Errorf("--long without a percent:\n%s", got)
	}
}
