package runway

import (
	"math"
	"text/template"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
)

// Template parses a `runway now --format` template. It runs over a
// burn.Snapshot and has these functions besides the standard ones:
//
//	line .              the whole `runway now` line
//	provider "claude" . that provider's status, or nil (use with "with")
//	pct x               a percent as the sources report it: "42%", "37.4%"
//	rate x              quota minutes per hour: "38", "6.5"
//	clock t             a time (such as .RunoutAt) as HH:MM locally; nil: ""
//	span m              a number of minutes (the snapshot's *_minutes fields) as "25m", "1h05m"
func Template(text string, loc *time.Location) (*template.Template, error) {
	return template.New("format").Funcs(template.FuncMap{
		"line": func(s burn.Snapshot) string { return Line(s, loc) },
		"provider": func(name string, s burn.Snapshot) *burn.ProviderStatus {
			for i := range s.Providers {
				if string(s.Providers[i].Provider) == name {
					return &s.Providers[i]
				}
			}
			return nil
		},
		"pct":  figure.Percent,
		"rate": Rate,
		"clock": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.In(loc).Format("15:04")
		},
		"span": spanMinutes,
	}).Parse(text)
}

// spanMinutes is the template's span: a number of minutes as Span writes
// it, with its sign ("-25m"), never wrapped around by an overflow (1e300
// minutes read "-9223372036s"); NaN is "?".
func spanMinutes(minutes float64) string {
	switch {
	case math.IsNaN(minutes):
		return "?"
	case minutes < 0:
		return "-" + spanMinutes(-minutes)
	case minutes >= float64(math.MaxInt64/int64(time.Minute)):
		return Span(math.MaxInt64)
	}
	return Span(time.Duration(minutes * float64(time.Minute)))
}
