package doctor

import (
	"strings"
	"testing"

	"github.com/agentrunway/runway/burn"
)

// A Codex-only user with no percent yet was told to install Claude Code's
// statusline; the fix must be Codex's.
func TestNoWindowChecksNameTheProvidersFix(t *testing.T) {
	got := noWindowChecks(burn.Snapshot{Providers: []burn.ProviderStatus{{Provider: burn.Codex}}})
	if len(got) != 1 || !strings.Contains(got[0].Fix, "Codex") || strings.Contains(got[0].Fix, "statusLine") {
		t.Fatalf("codex only: %+v", got)
	}
	if got := noWindowChecks(burn.Snapshot{}); len(got) != 1 || !strings.Contains(got[0].Fix, "statusLine") {
		t.Fatalf("no provider: %+v", got)
	}
}
