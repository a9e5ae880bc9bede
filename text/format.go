package text

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"sync"
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
			return SessionStatusline(d), nil
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

// Execute runs the template over a burn.Snapshot or a StatuslineData; its
// clock runs from the snapshot's instant, so a run-out past midnight says
// its day.
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

// snapshotOf is the snapshot a template function was given.
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
// the snapshot (a `runway now --format` template works unchanged) and what
// Claude Code's stdin said about this session.
type StatuslineData struct {
	burn.Snapshot
	SessionID          string
	Model, ModelID     string  // the display name ("Opus 4.5", else the id), the id
	ContextUsedPercent float64 // how full the context window is; 0 when not said
	Cwd                string
	Login              string              // the login of the session's config folder; "" when not known
	This               *burn.SessionStatus // this session's burn; nil without usage in the window
}

// Compiled on first use: a start-up that words no template error skips them.
var (
	templatePlace = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^template: format:\d+(?::(\d+))?: (?:executing "format" at <(.*?)>: )?`)
	})
	missingField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`can't evaluate field (\w+) in type (\S+)`) })
)

// TemplateProblem words a template's failure for the person who wrote it:
// where it failed, and for a field that does not exist the fields of the
// value it was read from (data: what Execute ran over). Hint is the next
// step: a template that reads through a null window fails only when it is.
func TemplateProblem(err error, data any) (problem, hint string) {
	msg := err.Error()
	where := ""
	if m := templatePlace().FindStringSubmatch(msg); m != nil {
		msg = msg[len(m[0]):]
		switch {
		case m[2] != "" && m[1] != "":
			where = fmt.Sprintf("at {{%s}} (column %s): ", m[2], m[1])
		case m[1] != "":
			where = fmt.Sprintf("at column %s: ", m[1])
		}
	}
	m := missingField().FindStringSubmatch(msg)
	if m == nil {
		if strings.Contains(msg, "nil pointer evaluating") {
			hint = "a window can be null: guard it with {{with .Window}}…{{end}}"
		}
		return where + msg, hint
	}
	name := strings.TrimPrefix(m[2], "*")
	what := map[string]string{"burn.Snapshot": "the snapshot", "text.StatuslineData": "the statusline's data",
		"burn.ProviderStatus": "a provider", "burn.WindowStatus": "a window", "burn.SessionStatus": "a session",
		"burn.Burn": "a burn"}[name]
	if what == "" {
		what = "a " + name
	}
	problem = fmt.Sprintf("%s%s has no field %s", where, what, m[1])
	if fields := fieldsOf(reflect.TypeOf(data), name); len(fields) > 0 {
		hint = fmt.Sprintf("the fields of %s: %s", what, strings.Join(fields, " "))
	}
	return problem, hint
}

// fieldsOf lists the exported fields of the type called name, found from
// t through fields, pointers and slices: the type a template reached.
func fieldsOf(t reflect.Type, name string) []string {
	seen := map[reflect.Type]bool{}
	for queue := []reflect.Type{t}; len(queue) > 0; queue = queue[1:] {
		t := queue[0]
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct || seen[t] {
			continue
		}
		seen[t] = true
		var names []string
		for _, f := range reflect.VisibleFields(t) {
			if f.IsExported() {
				names = append(names, "."+f.Name)
				queue = append(queue, f.Type)
			}
		}
		if t.String() == name {
			return names
		}
	}
	return nil
}
