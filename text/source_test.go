package text

import (
	"testing"
	"time"

	"github.com/agentrunway/runway/quota"
)

// A source's warning is worded here from the fields it carries: cause
// first, the retry in the reader's zone, then the fix.
func TestSourceWarning(t *testing.T) {
	now := time.Date(2026, 12, 1, 3, 50, 0, 0, time.UTC)
	loc := time.FixedZone("here", 2*3600)
	for _, tc := range []struct {
		st   quota.SourceState
		want string
	}{
		{quota.SourceState{Name: quota.NameCodexRPC, State: quota.StateOK}, ""},
		{quota.SourceState{Name: quota.NameCodexRPC, State: quota.StateBackoff, Cause: "Codex usage service busy (429)", NextTry: now.Add(5 * time.Minute)},
			"Codex usage service busy (429), retrying at 05:55"},
		{quota.SourceState{Name: quota.NameCodexRPC, State: quota.StateLoggedOut, Cause: "Codex login expired", Fix: "run `codex login`", NextTry: now.Add(5 * time.Minute)},
			"Codex login expired — run `codex login`"},
		{quota.SourceState{Name: quota.NameOAuth, State: quota.StateError, Detail: "garbage"}, "claude-oauth: error: garbage"},
	} {
		if got := SourceWarning(tc.st, now, loc); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, got, tc.want)
		}
	}
}
