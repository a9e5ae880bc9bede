package text

import (
	"fmt"
	"io"
	"strings"
	"text/template"
	"time"

	"github.com/agentrunway/runway/burn"
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
//	clock t             a time (such as .RunoutAt) as every surface shows it: "14:05",
//	                    "Tue 00:40" past midnight; nil: ""
//	span m              a number of minutes (the snapshot's *_minutes fields) as "25m", "1h05m"
func Template(text string, loc *time.Location) (*Format, error) {
	t, err := template.New("format").Funcs(template.FuncMap{
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
				if string(s.Providers[i].Provider) == name {
					return &s.Providers[i], nil
				}
			}
			return nil, nil
		},
		"pct":   Percent,
		"rate":  Rate,
		"clock": clockAt(time.Time{}, loc),
		"span":  Minutes,
	}).Parse(text)
	if err != nil {
		return nil, err
	}
	return &Format{t: t, loc: loc}, nil
}

// Format is a parsed --format template.
type Format struct {
	t   *template.Template
	loc *time.Location
}

// Execute runs the template over data: a burn.Snapshot or a
// StatuslineData. Its clock reads as Clock does on every surface, against
// the snapshot's own instant: a run-out past midnight says its day.
func (f *Format) Execute(w io.Writer, data any) error {
	if s, err := snapshotOf(data); err == nil {
		f.t.Funcs(template.FuncMap{"clock": clockAt(s.At, f.loc)})
	}
	return f.t.Execute(w, data)
}

// clockAt is the template's clock for a snapshot made at now.
func clockAt(now time.Time, loc *time.Location) func(*time.Time) string {
	return func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return Clock(*t, now, loc)
	}
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
