package tray

import (
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

// noticeScenario is a Claude 5-hour window heading for run-out before its
// reset, then running dry and resetting, with a Codex weekly window going
// low on the side.
func noticeScenario() []burn.Notice {
	myApp := &burn.SessionStatus{Provider: burn.Claude, ID: "1a2b3c4d-x", Project: "/home/ada/src/my-app", QuotaMinutesPerHour: 38, RateKind: burn.Measured, PauseLastsToReset: true}
	api := &burn.SessionStatus{Provider: burn.Claude, ID: "9f1c2d3e-x", Project: "/home/ada/src/api", QuotaMinutesPerHour: 52, RateKind: burn.Measured, PauseRunoutAt: at("2026-03-02T14:40:00Z"), PauseGainMinutes: 20}
	return []burn.Notice{
		{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 70,
			ResetsAt: at("2026-03-02T15:00:00Z"), RunoutAt: at("2026-03-02T14:35:00Z"), UrgencyMinutes: 60, Top: myApp, Key: "claude/5h/a/burning_fast/60"},
		{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 81,
			ResetsAt: at("2026-03-02T15:00:00Z"), RunoutAt: at("2026-03-02T14:20:00Z"), UrgencyMinutes: 30, Top: api, Key: "claude/5h/a/burning_fast/30"},
		{Kind: burn.NoticeLow, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 91.6,
			ResetsAt: at("2026-03-04T08:00:00Z"), Key: "codex/weekly/b/low"},
		{Kind: burn.NoticeExhausted, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 100,
			ResetsAt: at("2026-03-02T15:00:00Z"), Critical: true, Key: "claude/5h/a/exhausted"},
		{Kind: burn.NoticeReset, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 0,
			ResetsAt: at("2026-03-02T20:00:00Z"), Key: "claude/5h/a/reset"},
	}
}

// scenarioNow is when the scenario's notices are shown.
var scenarioNow = *at("2026-03-02T14:00:00Z")

var scenarioText = [][2]string{
	{"Claude 5h runs out in 35m — 14:35, 25m before the reset", "my-app burns 38m/h; pausing it lasts to the reset."},
	{"Claude 5h runs out in 20m — 14:20, 40m before the reset", "api burns 52m/h; pausing it buys 20m."},
	{"Codex weekly is low: 8% left", "No local session explains the burn: it comes from elsewhere (another machine, the web app). It resets in 42h00m — Wed 08:00."},
	{"Claude 5h is exhausted, resets in 1h00m — 15:00", "Agents on this account stall until the reset."},
	{"Claude 5h has reset", "The window is fresh again."},
}

func TestNoticeText(t *testing.T) {
	for i, n := range noticeScenario() {
		s, b := text.Notice(n, scenarioNow, time.UTC)
		if s != scenarioText[i][0] || b != scenarioText[i][1] {
			t.Errorf("%s:\n got %q / %q\nwant %q / %q", n.Key, s, b, scenarioText[i][0], scenarioText[i][1])
		}
	}
	// Without a reset time or a run-out there is still a sentence.
	s, b := text.Notice(burn.Notice{Kind: burn.NoticeBurningFast, Provider: burn.Codex, Window: burn.FiveHour}, scenarioNow, time.UTC)
	if s != "Codex 5h is burning fast" || b == "" {
		t.Errorf("got %q / %q", s, b)
	}
	if s, b := text.Notice(burn.Notice{Kind: burn.NoticeExhausted, Provider: burn.Codex, Window: burn.FiveHour}, scenarioNow, nil); s != "Codex 5h is exhausted" || b != "Agents on this account stall until the reset." {
		t.Errorf("got %q / %q", s, b)
	}
	// A low window that runs out leads with the countdown too, and the
	// issue's example reads as written.
	low := burn.Notice{Kind: burn.NoticeLow, Provider: burn.Claude, Window: burn.FiveHour, UsedPercent: 92,
		RunoutAt: at("2026-03-02T14:12:00Z"), ResetsAt: at("2026-03-02T15:00:00Z")}
	if s, _ := text.Notice(low, scenarioNow, time.UTC); s != "Claude 5h runs out in 12m — 14:12: 8% left" {
		t.Errorf("low: %q", s)
	}
	fast := burn.Notice{Kind: burn.NoticeBurningFast, Provider: burn.Claude, Window: burn.FiveHour,
		RunoutAt: at("2026-03-02T20:09:00Z"), ResetsAt: at("2026-03-02T21:21:00Z")}
	if s, _ := text.Notice(fast, *at("2026-03-02T20:01:00Z"), time.UTC); s != "Claude 5h runs out in 8m — 20:09, 1h12m before the reset" {
		t.Errorf("burning fast: %q", s)
	}
}
