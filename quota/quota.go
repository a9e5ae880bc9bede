// Package quota reads each provider's account windows from every source
// runway knows (docs/formats.md), paces the costly ones and keeps runway's
// sample log. It yields burn.Samples and a SourceState per source.
package quota

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// State is how a source is doing, one word a surface can switch on.
type State string

const (
	StateOK             State = "ok"              // the source answered, its newest sample is fresh
	StateStale          State = "stale"           // the source exists but its newest sample is old
	StateMissing        State = "missing"         // nothing there: no file, no binary, no credentials
	StateOff            State = "off"             // turned off by a setting (--offline)
	StatePaced          State = "paced"           // not asked: local data is fresh or the pacing interval has not passed
	StateBackoff        State = "backoff"         // the peer refused or failed: waiting until NextTry
	StateLoggedOut      State = "logged_out"      // credentials missing, expired or rejected
	StateNoSubscription State = "no_subscription" // logged in without a plan that has windows (API key)
	StateUntrusted      State = "untrusted"       // a file others could have written: ignored
	StateError          State = "error"           // unreadable, garbage, or an unexpected answer
)

// Source names, as SourceState.Name reports them.
const (
	NameStatusline = "claude-statusline" // samples runway statusline recorded into the log
	NameCache      = "claude-cache"      // the shared /tmp/claude cache of the usage body
	NameClaudeJSON = "claude-json"       // ~/.claude.json cachedUsageUtilization
	NameOAuth      = "claude-oauth"      // the Claude usage endpoint
	NameCodexRPC   = "codex-rpc"         // codex app-server
)

// SourceState is how one source is doing; it never holds a secret.
type SourceState struct {
	Name       string    `json:"name"`
	State      State     `json:"state"`
	Detail     string    `json:"detail,omitempty"`
	Fix        string    `json:"fix,omitempty"`
	Cause      string    `json:"cause,omitempty"`      // the short reason read first; Detail has the particulars
	ObservedAt time.Time `json:"observed_at,omitzero"` // newest observation from this source
	NextTry    time.Time `json:"next_try,omitzero"`    // when the source will be asked again
}

// NeedsLook: the source failed or refuses, not fine, paced, off or absent.
func (s SourceState) NeedsLook() bool {
	switch s.State {
	case StateLoggedOut, StateUntrusted, StateError, StateBackoff:
		return true
	}
	return false
}

// Alike says two states call for the same warning whatever the clock, so the
// engine publishes anew only when a source starts, stops or changes failing.
func (s SourceState) Alike(o SourceState) bool {
	if !s.NeedsLook() || !o.NeedsLook() {
		return s.NeedsLook() == o.NeedsLook()
	}
	same := s.Cause == o.Cause && s.Fix == o.Fix && s.State == o.State
	if s.Cause == "" {
		same = same && s.Name == o.Name && s.Detail == o.Detail
	}
	if s.State == StateBackoff || s.State == StateError {
		same = same && s.NextTry.Equal(o.NextTry)
	}
	return same
}

// Fresh is how long a sample spares asking a costlier source (the shared
// cache's own 180 s).
const Fresh = 180 * time.Second

// fingerprint names a secret without revealing it.
func fingerprint(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:4])
}

// AccountFingerprint names an account by a hash of its id, so two logins'
// samples never mix and the id is not written down.
func AccountFingerprint(id string) string {
	if id == "" {
		return ""
	}
	return fingerprint("account:" + id)
}

// scrub removes a secret from text in any letter case (a media type comes
// back lowercased); it runs before a cut, which would stop the match.
func scrub(text, secret string) string {
	if secret == "" {
		return text
	}
	mark := "[token " + fingerprint(secret) + "]"
	var b strings.Builder
	for {
		i := indexFold(text, secret)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		b.WriteString(mark)
		text = text[i+len(secret):]
	}
}

// indexFold is strings.Index ignoring ASCII case (tokens are ASCII).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// instant reads epoch seconds or milliseconds, as a number or a string, or
// RFC 3339; zero when absent or unreadable.
func instant(r gjson.Result) time.Time {
	switch r.Type {
	case gjson.Number:
		return jsonsafe.Epoch(r.Float())
	case gjson.String:
		s := strings.TrimSpace(r.Str)
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return jsonsafe.Epoch(f)
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
