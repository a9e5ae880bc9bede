package runway

import (
	"fmt"
	"math"
	"strings"
	"text/template"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/figure"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/agentrunway/runway/quota"
)

// Template parses a `runway now --format` or `runway statusline --format`
// template. It runs over a burn.Snapshot (now) or a StatuslineData
// (statusline, which has the snapshot's fields too) and has these functions
// besides the standard ones:
//
//	line .              the whole `runway now` line
//	statusline .        the default `runway statusline` line (statusline only)
//	provider "claude" . that provider's status, or nil (use with "with")
//	pct x               a percent as the sources report it: "42%", "37.4%"
//	rate x              quota minutes per hour: "38", "6.5"
//	clock t             a time (such as .RunoutAt) as HH:MM locally; nil: ""
//	span m              a number of minutes (the snapshot's *_minutes fields) as "25m", "1h05m"
func Template(text string, loc *time.Location) (*template.Template, error) {
	return template.New("format").Funcs(template.FuncMap{
		"line": func(v any) (string, error) {
			s, err := snapshotOf(v)
			return Line(s, loc), err
		},
		"statusline": func(v any) (string, error) {
			d, ok := v.(StatuslineData)
			if !ok {
				return "", fmt.Errorf("statusline takes the statusline's data (.), not %T", v)
			}
			return SessionStatusline(d.Snapshot, d.SessionID), nil
		},
		"provider": func(name string, v any) (*burn.ProviderStatus, error) {
			s, err := snapshotOf(v)
			if err != nil {
				return nil, err
			}
			for i := range s.Providers {
				if string(s.Providers[i].Provider) == name || s.Providers[i].Name() == name {
					return &s.Providers[i], nil
				}
			}
			return nil, nil
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

// snapshotOf is the snapshot a template function was given: the one
// `runway now` runs over, or the statusline's.
func snapshotOf(v any) (burn.Snapshot, error) {
	switch x := v.(type) {
	case burn.Snapshot:
		return x, nil
	case StatuslineData:
		return x.Snapshot, nil
	}
	return burn.Snapshot{}, fmt.Errorf("want the snapshot (.), got %T", v)
}

// StatuslineData is what a `runway statusline --format` template runs over:
// the snapshot (so a `runway now --format` template works unchanged) and
// what Claude Code's stdin said about this session.
type StatuslineData struct {
	burn.Snapshot
	// SessionID is this Claude Code session's id.
	SessionID string
	// Model is the model's display name ("Opus 4.5"), else its id;
	// ModelID its id.
	Model, ModelID string
	// ContextUsedPercent is how full this session's context window is; 0
	// when Claude Code did not say.
	ContextUsedPercent float64
	// Cwd is the session's working folder.
	Cwd string
	// This is this session's burn, nil when the snapshot does not list
	// it (no usage inside the window yet).
	This *burn.SessionStatus
}

func newStatuslineData(s burn.Snapshot, st quota.Statusline) StatuslineData {
	// Text from stdin is printed: printable, like everything read from a file.
	d := StatuslineData{Snapshot: s, SessionID: printable.String(st.SessionID), Model: printable.String(st.ModelName),
		ModelID: printable.String(st.Model), ContextUsedPercent: st.ContextUsedPercent, Cwd: printable.String(st.Cwd)}
	for i := range s.Sessions {
		if x := &s.Sessions[i]; x.Provider == burn.Claude && x.ID == st.SessionID && st.SessionID != "" {
			d.This = x
		}
	}
	return d
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

// TemplateHint is what to do about a template that failed on this
// snapshot: a window or a session can be null, and a template that reads
// through one fails only when it is; any other failure (a field that does
// not exist, a wrong argument) is its own explanation, so no hint.
func TemplateHint(err error) string {
	if err != nil && strings.Contains(err.Error(), "nil pointer evaluating") {
		return "a window can be null: guard it with {{with .Window}}…{{end}}"
	}
	return ""
}
