// Package burn is runway's model: a pure function of usage events, account
// samples and an instant that says which session burns the shared quota, how
// fast, and when the window runs dry.
//
// Nothing here reads a clock, a file or the network, and burn imports no other
// runway package: tail and quota feed it, the root package, cmd/runway and tray
// only render what it returns.
package burn

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Provider is an agent vendor whose subscription quota runway tracks.
type Provider string

const (
	Claude Provider = "claude"
	Codex  Provider = "codex"
)

// providers lists every provider in the order surfaces show them.
var providers = []Provider{Claude, Codex}

// WindowClass names a quota window by its length.
type WindowClass string

const (
	FiveHour WindowClass = "5h"
	Weekly   WindowClass = "weekly"
)

// ClassOf classifies a window by its length, never by the slot it came in:
// plans without a 5-hour window put the weekly one in Codex's "primary".
func ClassOf(windowMinutes int) WindowClass {
	if windowMinutes > 0 && windowMinutes < 1440 {
		return FiveHour
	}
	return Weekly
}

// DefaultMinutes is the length of a window class when a source does not say.
func (c WindowClass) DefaultMinutes() int {
	if c == FiveHour {
		return 300
	}
	return 10080
}

// Source says where an account sample came from.
type Source string

const (
	SourceStatusline Source = "statusline"  // Claude Code statusline stdin, 0.1 % steps
	SourceCodexLog   Source = "codex-log"   // rate_limits in a Codex rollout, float
	SourceCodexRPC   Source = "codex-rpc"   // codex app-server, whole percent
	SourceOAuth      Source = "oauth"       // Claude usage endpoint, whole percent
	SourceOAuthCache Source = "oauth-cache" // a cached copy of the endpoint's body
	SourceLimitHit   Source = "limit-hit"   // a Claude limit-hit line: 100 % used
)

// resolution is the smallest step in which a source reports percent; a move
// smaller than a few steps is noise, not a rate. Zero means a float.
func (s Source) resolution() float64 {
	switch s {
	case SourceStatusline:
		return 0.1
	case SourceCodexRPC, SourceOAuth, SourceOAuthCache:
		return 1
	}
	return 0
}

// Tokens are the raw counts of one usage event. Input excludes cache reads
// and cache writes for both providers (for Codex: input − cached_input).
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
}

// MaxResponseTokens bounds one response's count of any kind: a hundred
// context windows' worth is a damaged or hostile record.
const MaxResponseTokens = 1e8

// DefaultCacheReadWeight is the share of a cache-read token that counts
// against the quota (docs/formats.md, "Weighted tokens"); a setting.
const DefaultCacheReadWeight = 0.1

// Weighted is the unit of a session's token rate: input + output + cache
// writes + weight × cache reads.
func (t Tokens) Weighted(cacheReadWeight float64) float64 {
	return float64(t.Input) + float64(t.Output) + float64(t.CacheCreation) + cacheReadWeight*float64(t.CacheRead)
}

// Event is one API response's usage, as a session's log recorded it.
// Streamed copies of one response share a Key; whoever stores events
// replaces by Key, never adds.
type Event struct {
	Provider Provider
	Session  string // session id; a subagent's events carry their parent's
	Agent    string // subagent (Claude agentId, Codex thread id); "" for the main thread
	Project  string // the session's working directory
	Model    string
	Host     string    // the machine a session reported from over OpenTelemetry; "" for local logs
	At       time.Time // when the usage was written
	// TurnStart is the line before this one in the same file: the start of
	// the work this usage paid for; zero when unknown.
	TurnStart time.Time
	Key       string // identity of the response (Claude message id + request id)
	Tokens    Tokens
	Weighted  float64
	Final     bool   // the counts are final (a streamed placeholder is not)
	EndsTurn  bool   // the response ended the agent's turn: what comes next waits for the user
	Account   string // the login the session runs under, as Sample.Account; "" when unknown
}

// Activity is the newest line of any kind a session (or one of its
// subagents) wrote. It keeps a session listed as waiting between usage events.
type Activity struct {
	Provider  Provider
	Session   string
	At        time.Time
	TurnEnded bool   // the newest line ended the agent's turn
	Account   string // as Event.Account
}

// Sample is one observation of an account window's used percent. Its JSON
// form is the line format of runway's sample log.
type Sample struct {
	ObservedAt    time.Time   `json:"observed_at"`
	Provider      Provider    `json:"provider"`
	Window        WindowClass `json:"window"`
	WindowMinutes int         `json:"window_minutes"`
	UsedPercent   float64     `json:"used_percent"`
	ResetsAt      time.Time   `json:"resets_at"` // zero when the source did not say
	Source        Source      `json:"source"`
	// Account fingerprints the account (a hash of its id, never a token);
	// "" where the source does not say.
	Account string `json:"account,omitempty"`
}

// finite replaces NaN and infinities by zero so they never reach a surface.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// SortEvents orders events by time, then provider and key: one order for
// every reader of a merged log.
func SortEvents(evs []Event) {
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Or(a.At.Compare(b.At), sameTime(&a, &b)) })
}

// sameTime orders two events written at one instant: by provider, then key.
func sameTime(a, b *Event) int {
	return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Key, b.Key))
}
