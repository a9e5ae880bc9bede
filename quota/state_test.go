package quota

import (
	"encoding/json"
	"testing"
	"time"
)

// TestStateJSONIsTheWord: a typed State writes the same JSON as the bare
// word it replaced, in sources.json and the snapshot, and reads back.
func TestStateJSONIsTheWord(t *testing.T) {
	for state, word := range map[State]string{StateOK: "ok", StateStale: "stale", StateMissing: "missing", StateOff: "off",
		StatePaced: "paced", StateBackoff: "backoff", StateLoggedOut: "logged_out", StateNoSubscription: "no_subscription",
		StateUntrusted: "untrusted", StateError: "error"} {
		s := SourceState{Name: NameOAuth, State: state, NextTry: time.Date(2026, 12, 1, 3, 50, 0, 0, time.UTC)}
		b, err := json.Marshal(s)
		want := `{"name":"claude-oauth","state":"` + word + `","next_try":"2026-12-01T03:50:00Z"}`
		if err != nil || string(b) != want {
			t.Errorf("%s: %s %v, want %s", word, b, err, want)
		}
		var back SourceState
		if err := json.Unmarshal(b, &back); err != nil || back.State != state {
			t.Errorf("%s read back as %q %v", word, back.State, err)
		}
	}
}
