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

// parseRateLimits reads the result of account/rateLimits/read
// (docs/formats.md, "Codex app-server"): the rateLimits snapshot when it is Codex's own bucket, else that
// bucket from rateLimitsByLimitId. Null windows are no data, not 0 %.
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

// snapshotSamples maps a RateLimitSnapshot's windows, classified by their
// length; a window without a length takes its slot's usual one.
func snapshotSamples(snap gjson.Result, observed time.Time) []burn.Sample {
	var out []burn.Sample
	for _, w := range []struct {
		key     string
		minutes int
	}{{"primary", 300}, {"secondary", 10080}} {
		win := snap.Get(w.key)
		used := win.Get("usedPercent")
		if !win.IsObject() || used.Type != gjson.Number {
			continue
		}
		var resets time.Time
		if r := win.Get("resetsAt"); r.Type == gjson.Number {
			resets = jsonsafe.Epoch(r.Float())
		}
		var minutes float64 // none: the slot's usual length
		if m := win.Get("windowDurationMins"); m.Type == gjson.Number {
			minutes = m.Num
		}
		if s, ok := burn.NewSample(burn.Codex, burn.SourceCodexRPC, observed, used.Num, minutes, w.minutes, resets); ok {
			out = append(out, s)
		}
	}
	return out
}

// parseRateLimitsUpdated reads an account/rateLimits/updated notification's
// params: a sparse snapshot, timestamped by emittedAtMs when present.
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
