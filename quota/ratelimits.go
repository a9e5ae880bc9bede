package quota

import (
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

// codexLimit is the bucket of Codex's ordinary quota; other buckets
// (codex_bengalfox, …) are separate quotas runway does not show.
const codexLimit = "codex"

// parseRateLimits reads account/rateLimits/read's result (docs/formats.md,
// "Codex app-server"): the rateLimits snapshot when it is Codex's own
// bucket, else that bucket from rateLimitsByLimitId.
func parseRateLimits(result []byte, observed time.Time) ([]burn.Sample, error) {
	if !jsonsafe.Valid(result) {
		return nil, errBadResult
	}
	root := gjson.ParseBytes(result)
	if !root.IsObject() {
		return nil, errBadResult
	}
	snap := root.Get("rateLimits")
	if !isCodexBucket(snap) {
		snap = root.Get("rateLimitsByLimitId." + codexLimit)
	}
	if !snap.IsObject() {
		if root.Get("rateLimits").Exists() || root.Get("rateLimitsByLimitId").Exists() {
			return nil, nil // only other buckets: no data for Codex's own
		}
		return nil, errBadResult
	}
	return snapshotSamples(snap, observed), nil
}

// isCodexBucket: a snapshot object whose limitId is Codex's or not given.
func isCodexBucket(snap gjson.Result) bool {
	if !snap.IsObject() {
		return false
	}
	id := snap.Get("limitId")
	return !id.Exists() || id.Type == gjson.Null || id.Str == codexLimit
}

// snapshotSamples maps a RateLimitSnapshot's windows; a null one is no data.
func snapshotSamples(snap gjson.Result, observed time.Time) []burn.Sample {
	return windowSamples(snap, [2]string{"primary", "secondary"}, "usedPercent", "resetsAt", burn.Codex, burn.SourceCodexRPC, observed)
}

// parseRateLimitsUpdated reads an account/rateLimits/updated notification:
// a sparse snapshot, timestamped by emittedAtMs when present.
func parseRateLimitsUpdated(line gjson.Result, now time.Time) []burn.Sample {
	snap := line.Get("params.rateLimits")
	if !isCodexBucket(snap) {
		return nil
	}
	at := now
	if t := jsonsafe.Epoch(line.Get("emittedAtMs").Float()); !t.IsZero() && !t.After(now) {
		at = t
	}
	return snapshotSamples(snap, at)
}
