package metrics

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/agentrunway/runway/burn"
)

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := now.Add(d); return &t }

// snapshot has Claude with a 5-hour and a weekly window, Codex with a
// weekly window only (its active one), and sessions of every kind.
func snapshot(burning int) burn.Snapshot {
	five := &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: 62.5, ResetsAt: at(time.Hour),
		Source: burn.SourceStatusline, ObservedAt: now.Add(-20 * time.Second), Fresh: true,
		Burn: burn.Burn{QuotaMinutesPerHour: 90, SustainableQuotaMinutesPerHour: 67.5, Method: burn.MethodMeasured}, RunoutAt: at(40 * time.Minute), State: burn.RunoutBeforeReset}
	week := &burn.WindowStatus{Class: burn.Weekly, Minutes: 10080, UsedPercent: 30, ResetsAt: at(72 * time.Hour),
		Source: burn.SourceOAuth, ObservedAt: now.Add(-5 * time.Minute), Burn: burn.Burn{QuotaMinutesPerHour: 30, SustainableQuotaMinutesPerHour: 98, Method: burn.MethodAverage}, State: burn.OnTrack}
	cweek := &burn.WindowStatus{Class: burn.Weekly, Minutes: 10080, UsedPercent: 100, ResetsAt: at(24 * time.Hour),
		Source: burn.SourceCodexLog, ObservedAt: now.Add(-time.Minute), Burn: burn.Burn{Method: burn.MethodMeasured}, State: burn.Exhausted}
	s := burn.Snapshot{At: now,
		Providers: []burn.ProviderStatus{
			{Provider: burn.Claude, Window: five, Weekly: week, State: five.State, Burn: five.Burn, RunoutAt: five.RunoutAt, ElsewhereQuotaMinutesPerHour: 12},
			{Provider: burn.Codex, Window: cweek, Weekly: cweek, State: burn.Exhausted, Burn: cweek.Burn},
		},
		Sessions: []burn.SessionStatus{
			{Provider: burn.Claude, ID: "idle-1", RateKind: burn.Idle},
			{Provider: burn.Claude, ID: "waiting-1", RateKind: burn.Waiting},
		},
	}
	for i := range burning {
		s.Sessions = append(s.Sessions, burn.SessionStatus{Provider: burn.Claude, ID: fmt.Sprintf("s-%03d", i), Project: "/srv/app",
			Host: "devbox", RateKind: burn.Measured, QuotaMinutesPerHour: float64(i), TokensPerS: 10})
	}
	return s
}

// scrape is GET /metrics with runway's snapshot families and the
// process's, linted as promtool lints them.
func scrape(t *testing.T, s burn.Snapshot, more ...Source) string {
	t.Helper()
	sources := append([]Source{Snapshot(func() burn.Snapshot { return s }, func() time.Time { return now }), Process}, more...)
	rec := httptest.NewRecorder()
	Handler(sources...).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if problems, err := promlint.New(strings.NewReader(rec.Body.String())).Lint(); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
	return rec.Body.String()
}

func TestSessionSeriesAreBounded(t *testing.T) {
	text := scrape(t, snapshot(500))
	if n := strings.Count(text, "runway_session_quota_seconds_per_second{"); n != MaxSessions {
		t.Errorf("%d session series, want at most %d", n, MaxSessions)
	}
	// The busiest are kept.
	if !strings.Contains(text, `session="s-499"`) || strings.Contains(text, `session="s-000"`) {
		t.Error("not the busiest sessions")
	}
}

func TestEmptySnapshot(t *testing.T) {
	text := scrape(t, burn.Snapshot{})
	if strings.Contains(text, "runway_window") || !strings.Contains(text, "go_goroutines") {
		t.Errorf("%s", text)
	}
}

// Regression: two Claude logins gave two series with one label set, and
// the whole scrape failed. Each login is a provider value of its own.
func TestTwoLoginsAreTwoSeries(t *testing.T) {
	s := snapshot(2)
	work, home := s.Providers[0], s.Providers[0]
	work.Account, work.AccountLabel = "aaaa1111", "work"
	home.Account, home.AccountLabel = "bbbb2222", "home"
	s.Providers = append([]burn.ProviderStatus{work, home}, s.Providers[1:]...)
	for i := range s.Sessions {
		s.Sessions[i].Account = "aaaa1111"
	}
	text := scrape(t, s)
	for _, want := range []string{
		`runway_window_used_ratio{provider="claude (work)",window="5h"} 0.625`,
		`runway_window_used_ratio{provider="claude (home)",window="5h"} 0.625`,
		`runway_session_tokens_per_second{host="devbox",project="/srv/app",provider="claude (work)",session="s-000"} 10`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(text, `provider="claude (home)",session=`) {
		t.Error("work's sessions listed under home")
	}
}

// Unknown is no series, not 0: without the provider's burn no burn, no
// elsewhere and no session share; the token rate is known and stays.
func TestUnknownBurnIsNoSeries(t *testing.T) {
	s := burn.Snapshot{At: now,
		Providers: []burn.ProviderStatus{{Provider: burn.Claude, State: burn.NoData, Burn: burn.Burn{Method: burn.MethodNone}}},
		Sessions:  []burn.SessionStatus{{Provider: burn.Claude, ID: "s", Project: "/srv/app", RateKind: burn.Measured, TokensPerS: 2000}},
	}
	text := scrape(t, s)
	for _, absent := range []string{"runway_session_quota_seconds_per_second{", "runway_elsewhere_quota_seconds_per_second{", "runway_window_burn_quota_seconds_per_second{"} {
		if strings.Contains(text, absent) {
			t.Errorf("has %s while the burn is unknown", absent)
		}
	}
	if !strings.Contains(text, `runway_session_tokens_per_second{host="",project="/srv/app",provider="claude",session="s"} 2000`) {
		t.Errorf("no token rate:\n%s", text)
	}
}
