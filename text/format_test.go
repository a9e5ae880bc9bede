package text

import (
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
