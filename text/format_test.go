package text

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A template's clock says the day of a run-out past midnight, as the line
// and the tray do: "00:40" alone would read as earlier today.
func TestTemplateClockSaysTheDay(t *testing.T) {
	at := time.Date(2026, 12, 1, 23, 50, 0, 0, time.UTC)
	runout := at.Add(50 * time.Minute)
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{{Provider: burn.Claude, RunoutAt: &runout}}}
	f, err := Template(`{{with provider "claude" .}}{{clock .RunoutAt}}{{end}}|{{line .}}`, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(b.String(), "|")[0]; got != "Wed 00:40" {
		t.Errorf("clock = %q, want Wed 00:40", got)
	}
	if got := strings.Split(b.String(), "|")[0]; got != Clock(runout, at, time.UTC) {
		t.Errorf("the template's clock %q is not the surfaces' %q", got, Clock(runout, at, time.UTC))
	}
}

// With two Claude logins, a template picks one by its name; the session's
// statusline is of its own login.
func TestTwoLoginsInTemplatesAndTheStatusline(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	reset := at.Add(2 * time.Hour)
	win := func(used float64) *burn.WindowStatus {
		return &burn.WindowStatus{Class: burn.FiveHour, Minutes: 300, UsedPercent: used, ResetsAt: &reset, ObservedAt: at, Fresh: true, State: burn.OnTrack}
	}
	s := burn.Snapshot{At: at, Providers: []burn.ProviderStatus{
		{Provider: burn.Claude, Account: "aaaa1111", AccountLabel: "work", Window: win(30), State: burn.OnTrack},
		{Provider: burn.Claude, Account: "bbbb2222", AccountLabel: "home", Window: win(70), State: burn.OnTrack},
	}, Sessions: []burn.SessionStatus{{Provider: burn.Claude, ID: "s-home", Account: "bbbb2222", RateKind: burn.Idle}}}
	f, err := Template(`{{with provider "claude (home)" .}}{{pct .Window.UsedPercent}}{{end}}`, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.Execute(&b, s); err != nil || b.String() != "70%" {
		t.Errorf("template gave %q (%v), want home's 70%%", b.String(), err)
	}
	if got := SessionStatusline(StatuslineData{Snapshot: s, SessionID: "s-home"}); !strings.HasPrefix(got, "claude (home) 5h 70%") {
		t.Errorf("statusline %q, want the session's own login's line", got)
	}
}

// What pausing buys names the week when the week is the window that binds.
func TestPauseNamesTheWeekWhenItBinds(t *testing.T) {
	for _, c := range []struct {
		ss   burn.SessionStatus
		want string
	}{
		{burn.SessionStatus{PauseGainMinutes: 45, PauseLastsToReset: true}, "lasts to reset"},
		{burn.SessionStatus{PauseGainMinutes: 25}, "+25m"},
		{burn.SessionStatus{PauseGainMinutes: 540, PauseWindow: burn.Weekly}, "weekly +9h00m"},
		{burn.SessionStatus{PauseGainMinutes: 0.5}, ""},
		{burn.SessionStatus{PauseLastsToReset: true}, ""}, // nothing runs out: nothing to show
	} {
		if got := Pause(c.ss); got != c.want {
			t.Errorf("Pause(%+v) = %q, want %q", c.ss, got, c.want)
		}
	}
}

// TestTemplateProblem: a field that does not exist is said in the user's
// words, with the fields of the value it was read from, not Go's type name.
func TestTemplateProblem(t *testing.T) {
	snap := burn.Snapshot{Providers: []burn.ProviderStatus{{Window: &burn.WindowStatus{}}}}
	for _, c := range []struct {
		format        string
		data          any
		problem, hint string
	}{
		{"{{.Foo}}", snap, "at {{.Foo}} (column 2): the snapshot has no field Foo", "the fields of the snapshot: .At .Providers .Sessions .Warnings .Unread"},
		{"{{range .Providers}}{{.Window.Foo}}{{end}}", snap, "at {{.Window.Foo}} (column 29): a window has no field Foo", "the fields of a window: .Class "},
		{"{{.Foo}}", StatuslineData{Snapshot: snap}, "the statusline's data has no field Foo", " .ContextUsedPercent "},
		{"{{range .Providers}}{{.Weekly.UsedPercent}}{{end}}", snap, "nil pointer evaluating", "a window can be null: guard it with {{with .Window}}…{{end}}"},
	} {
		f, err := Template(c.format, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		err = f.Execute(io.Discard, c.data)
		if err == nil {
			t.Fatalf("%s: no error", c.format)
		}
		problem, hint := TemplateProblem(err, c.data)
		if !strings.Contains(problem, c.problem) || !strings.Contains(hint, c.hint) || strings.Contains(c.hint, "fields") && strings.Contains(problem+hint, "burn.") {
			t.Errorf("%s: %q, %q; want %q, %q", c.format, problem, hint, c.problem, c.hint)
		}
	}
	_, err := Template("{{.Foo", time.UTC)
	if problem, _ := TemplateProblem(err, nil); problem != "unclosed action" {
		t.Errorf("parse error: %q", problem)
	}
}
