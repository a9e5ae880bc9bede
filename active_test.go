package runway

import (
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// TestActiveByProvider: a provider is active while one of its own sessions
// wrote usage in the last 5 minutes; another provider's turn does not count.
func TestActiveByProvider(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	events := []burn.Event{{Provider: burn.Claude, At: at.Add(-4 * time.Minute)}, {Provider: burn.Codex, At: at.Add(-5 * time.Minute)}}
	if !active(events, burn.Claude, at) {
		t.Error("a Claude turn 4 minutes ago: not active")
	}
	if active(events, burn.Codex, at) {
		t.Error("a Codex turn 5 minutes ago: active")
	}
	if active(events[:1], burn.Codex, at) {
		t.Error("a Claude turn made Codex active")
	}
}
