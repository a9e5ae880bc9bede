package quota

import (
	"errors"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

var (
	errNotUsage = errors.New("quota: not a usage body")
	errNoWindow = errors.New("quota: usage body has no window key")
	// Window keys with no percent runway can use are no data, not an empty success.
	errNoUsableWindow = errors.New("quota: usage body has no usable window")
	errUsageError     = errors.New("quota: usage body is an error")
)

// parseUsage reads a usage body (docs/formats.md, "Usage body") as the
// endpoint, the shared cache and ~/.claude.json hold it.
func parseUsage(body []byte, observed time.Time, src burn.Source) ([]burn.Sample, error) {
	if !jsonsafe.Valid(body) {
		return nil, errNotUsage
	}
	return usageSamples(gjson.ParseBytes(body), observed, src)
}

// usageSamples: a window given as an object wins; limits[] fills a window
// that is null or absent.
func usageSamples(root gjson.Result, observed time.Time, src burn.Source) ([]burn.Sample, error) {
	if !root.IsObject() {
		return nil, errNotUsage
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		if t := str(e.Get("type")); t != "" {
			return nil, fmt.Errorf("%w: %s", errUsageError, t)
		}
		return nil, errUsageError
	}
	limits := root.Get("limits")
	if !root.Get("five_hour").Exists() && !root.Get("seven_day").Exists() && !limits.Exists() {
		return nil, errNoWindow
	}
	out := windowSamples(root, [2]string{"five_hour", "seven_day"}, "utilization", "resets_at", burn.Claude, src, observed)
	have := map[burn.WindowClass]bool{}
	for _, s := range out {
		have[s.Window] = true
	}
	for _, l := range limits.Array() {
		var minutes int
		switch str(l.Get("kind")) {
		case "session":
			minutes = 300
		case "weekly_all":
			minutes = 10080
		default:
			continue // per-model weekly limits are separate quotas
		}
		p := l.Get("percent")
		if p.Type != gjson.Number {
			p = l.Get("utilization")
		}
		if p.Type != gjson.Number || have[burn.ClassOf(minutes)] {
			continue
		}
		if s, ok := burn.NewSample(burn.Claude, src, observed, p.Float(), 0, minutes, instant(l.Get("resets_at"))); ok {
			out = append(out, s)
			have[s.Window] = true
		}
	}
	if len(out) == 0 {
		return nil, errNoUsableWindow
	}
	return out, nil
}

// windowSamples reads the five-hour and weekly window objects named keys
// under parent: each its percent under pct, its reset under resets and, for
// Codex, its length (else the slot's usual one).
func windowSamples(parent gjson.Result, keys [2]string, pct, resets string, p burn.Provider, src burn.Source, at time.Time) []burn.Sample {
	var out []burn.Sample
	for i, minutes := range [2]int{300, 10080} {
		win := parent.Get(keys[i])
		used := win.Get(pct)
		if !win.IsObject() || used.Type != gjson.Number {
			continue
		}
		var length float64
		if m := win.Get("windowDurationMins"); p == burn.Codex && m.Type == gjson.Number {
			length = m.Num
		}
		if s, ok := burn.NewSample(p, src, at, used.Num, length, minutes, instant(win.Get(resets))); ok {
			out = append(out, s)
		}
	}
	return out
}
