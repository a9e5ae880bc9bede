package quota

import (
	"errors"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

// Errors a usage body can give.
var (
	errNotUsage = errors.New("quota: not a usage body")
	errNoWindow = errors.New("quota: usage body has no window key")
	// errNoUsableWindow: the window keys are there, but none holds a
	// percent runway can use (null, a string, an absurd number). That is
	// no data, not a success with nothing in it.
	errNoUsableWindow = errors.New("quota: usage body has no usable window")
	errUsageError     = errors.New("quota: usage body is an error")
)

// parseUsage reads the body of the Claude usage endpoint (docs/formats.md,
// "Usage body"), as the endpoint, the shared cache and ~/.claude.json hold it. A window
// given as an object wins; limits[] fills a window that is null or absent.
func parseUsage(body []byte, observed time.Time, src burn.Source) ([]burn.Sample, error) {
	if !jsonsafe.Valid(body) {
		return nil, errNotUsage
	}
	return usageSamples(gjson.ParseBytes(body), observed, src)
}

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
	five, week, limits := root.Get("five_hour"), root.Get("seven_day"), root.Get("limits")
	if !five.Exists() && !week.Exists() && !limits.Exists() {
		return nil, errNoWindow
	}
	var out []burn.Sample
	have := map[burn.WindowClass]bool{}
	for _, w := range []struct {
		r       gjson.Result
		minutes int
	}{{five, 300}, {week, 10080}} {
		u := w.r.Get("utilization")
		if !w.r.IsObject() || u.Type != gjson.Number {
			continue
		}
		if s, ok := burn.NewSample(burn.Claude, src, observed, u.Float(), 0, w.minutes, instant(w.r.Get("resets_at"))); ok {
			out = append(out, s)
			have[s.Window] = true
		}
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
