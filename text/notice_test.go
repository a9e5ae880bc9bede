package text

import (
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// TestNotice: every kind of notice leads with how long is left, names the
// session to pause and reads the burn against the pace that lasts to the
// reset (issue 24 item 9); a login of its own is named.
func TestNotice(t *testing.T) {
	now := *at("2026-03-02T14:00:00Z")
	reset := at("2026-03-02T15:00:00Z")
	myApp := &burn.SessionStatus{Provider: burn.Claude, ID: "1a2b3c4d-x", Project: "/home/ada/src/my-app", QuotaMinutesPerHour: 38, RateKind: burn.Measured, PauseLastsToReset: true}
	api := &burn.SessionStatus{Provider: burn.Claude, ID: "9f1c2d3e-x", Project: "/home/ada/src/api", QuotaMinutesPerHour: 52, RateKind: burn.Measured, PauseGainMinutes: 20}
	notice := func(k burn.NoticeKind, p burn.Provider, used float64, resets, runout *time.Time, top *burn.SessionStatus) burn.Notice {
		return burn.Notice{Kind: k, Provider: p, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: used, ResetsAt: resets, RunoutAt: runout, Top: top}
	}
	weeklyLow := burn.Notice{Kind: burn.NoticeLow, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 91.6, ResetsAt: at("2026-03-04T08:00:00Z")}
	exhausted := notice(burn.NoticeExhausted, burn.Claude, 100, reset, nil, nil)
	exhausted.Critical = true
	nowcast := notice(burn.NoticeBurningFast, burn.Claude, 42, at("2026-03-02T16:05:00Z"), at("2026-03-02T15:40:00Z"),
		&burn.SessionStatus{Provider: burn.Claude, ID: "a", Project: "/src/my-app", QuotaMinutesPerHour: 38, PauseGainMinutes: 12})
	nowcast.Burn = burn.Burn{QuotaMinutesPerHour: 104.4, SustainableQuotaMinutesPerHour: 83.5, Method: burn.MethodNowcast}
	home := notice(burn.NoticeLow, burn.Claude, 91, nil, nil, nil)
	home.Account, home.AccountLabel = "bbbb2222", "home"
	noTop := "No local session explains the burn: it comes from elsewhere (another machine, the web app)."
	for _, c := range []struct {
		n             burn.Notice
		summary, body string
	}{
		{notice(burn.NoticeBurningFast, burn.Claude, 70, reset, at("2026-03-02T14:35:00Z"), myApp),
			"Claude 5h runs out in 35m — 14:35, 25m before the reset", "my-app burns 38m/h; pausing it lasts to the reset."},
		{notice(burn.NoticeBurningFast, burn.Claude, 81, reset, at("2026-03-02T14:20:00Z"), api),
			"Claude 5h runs out in 20m — 14:20, 40m before the reset", "api burns 52m/h; pausing it buys 20m."},
		{weeklyLow, "Codex weekly is low: 8% left", noTop + " It resets in 42h00m — Wed 08:00."},
		{exhausted, "Claude 5h is exhausted, resets in 1h00m — 15:00", "Agents on this account stall until the reset."},
		{notice(burn.NoticeReset, burn.Claude, 0, at("2026-03-02T20:00:00Z"), nil, nil), "Claude 5h has reset", "The window is fresh again."},
		// Without a reset time or a run-out there is still a sentence.
		{notice(burn.NoticeBurningFast, burn.Codex, 0, nil, nil, nil), "Codex 5h is burning fast", noTop},
		{notice(burn.NoticeLow, burn.Codex, 92, nil, nil, nil), "Codex 5h is low: 8% left", noTop},
		{notice(burn.NoticeExhausted, burn.Codex, 100, nil, nil, nil), "Codex 5h is exhausted", "Agents on this account stall until the reset."},
		{notice(burn.NoticeLow, burn.Claude, 92, reset, at("2026-03-02T14:12:00Z"), nil),
			"Claude 5h runs out in 12m — 14:12: 8% left", noTop + " It resets in 1h00m — 15:00."},
		{nowcast, "Claude 5h runs out in 1h40m — 15:40, 25m before the reset",
			"my-app burns 38m/h; pausing it buys 12m. The window burns 104m/h; up to 84m/h lasts to the reset."},
		{home, "Claude (home) 5h is low: 9% left", noTop},
	} {
		if s, b := Notice(c.n, now, time.UTC); s != c.summary || b != c.body {
			t.Errorf("%s:\n got %q / %q\nwant %q / %q", c.n.Kind, s, b, c.summary, c.body)
		}
	}
	// Without a zone, the local one.
	if s, b := Notice(exhausted, now, nil); s != "Claude 5h is exhausted, resets in 1h00m — "+Clock(*reset, now, time.Local) || b == "" {
		t.Errorf("got %q / %q", s, b)
	}
	fast := notice(burn.NoticeBurningFast, burn.Claude, 0, at("2026-03-02T21:21:00Z"), at("2026-03-02T20:09:00Z"), nil)
	if s, _ := Notice(fast, *at("2026-03-02T20:01:00Z"), time.UTC); s != "Claude 5h runs out in 8m — 20:09, 1h12m before the reset" {
		t.Errorf("burning fast: %q", s)
	}
}
