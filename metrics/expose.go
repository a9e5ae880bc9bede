package metrics

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// runway writes the text format itself: the client library's package init
// costs every runway process milliseconds, for gauges and counters only.

// ContentType is the text exposition format every Prometheus scrapes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Type is a family's metric type.
type Type string

const (
	Gauge   Type = "gauge"
	Counter Type = "counter"
)

type Label struct{ Name, Value string }

// Sample is one series' value.
type Sample struct {
	Labels []Label
	Value  float64
}

// Family is a metric with its samples; families of one name from several
// sources are one in the exposition.
type Family struct {
	Name, Help string
	Type       Type
	Samples    []Sample
}

// Source gives its families at each scrape.
type Source func() []Family

// Handler serves every source's families in the text format (Prometheus
// takes it when OpenMetrics is not offered), gzipped when accepted.
func Handler(sources ...Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "runway: /metrics is read with GET", http.StatusMethodNotAllowed)
			return
		}
		var fams []Family
		for _, s := range sources {
			fams = append(fams, s()...)
		}
		body := AppendText(nil, fams)
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			var zb bytes.Buffer
			zw := gzip.NewWriter(&zb)
			zw.Write(body)
			zw.Close()
			body = zb.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
}

// acceptsGzip: Accept-Encoding lists gzip without refusing it (q=0).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

// AppendText appends fams in the text format, sorted by name, then label
// name, then label value; the first family of a name gives HELP and TYPE,
// the first of a label set twice is written, an empty family is not.
func AppendText(b []byte, fams []Family) []byte {
	fams = slices.Clone(fams)
	slices.SortStableFunc(fams, func(x, y Family) int { return strings.Compare(x.Name, y.Name) })
	for i := 0; i < len(fams); {
		j := i
		var samples []Sample
		for j < len(fams) && fams[j].Name == fams[i].Name {
			samples = append(samples, fams[j].Samples...)
			j++
		}
		b = appendFamily(b, fams[i], samples)
		i = j
	}
	return b
}

func appendFamily(b []byte, f Family, samples []Sample) []byte {
	if len(samples) == 0 {
		return b
	}
	type series struct {
		labels []Label
		text   []byte // the rendered label set, {…} or empty
		value  float64
	}
	list := make([]series, 0, len(samples))
	for _, s := range samples {
		labels := slices.Clone(s.Labels)
		slices.SortStableFunc(labels, func(x, y Label) int { return strings.Compare(x.Name, y.Name) })
		list = append(list, series{labels: labels, text: appendLabels(nil, labels), value: s.Value})
	}
	slices.SortStableFunc(list, func(x, y series) int {
		for i := range min(len(x.labels), len(y.labels)) {
			if c := cmp.Or(strings.Compare(x.labels[i].Name, y.labels[i].Name),
				strings.Compare(x.labels[i].Value, y.labels[i].Value)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x.labels), len(y.labels))
	})
	b = fmt.Appendf(b, "# HELP %[1]s %[2]s\n# TYPE %[1]s %[3]s\n", f.Name, appendEscaped(nil, f.Help, false), cmp.Or(f.Type, Gauge))
	// Prometheus refuses a label set twice; values that differ only in
	// bytes that are not UTF-8 are one set once written.
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if seen[string(s.text)] {
			continue
		}
		seen[string(s.text)] = true
		b = append(b, f.Name...)
		b = append(b, s.text...)
		b = append(b, ' ')
		b = AppendFloat(b, s.value)
		b = append(b, '\n')
	}
	return b
}

func appendLabels(b []byte, labels []Label) []byte {
	if len(labels) == 0 {
		return b
	}
	b = append(b, '{')
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.Name...)
		b = append(b, `="`...)
		b = appendEscaped(b, l.Value, true)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendEscaped escapes a label value (quote) or HELP text; a run of bytes
// that is not UTF-8 becomes one U+FFFD, as Prometheus refuses them.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, string(utf8.RuneError))
	}
	for i := range len(s) {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendFloat writes a value as Prometheus reads it: shortest exact, +Inf, -Inf, NaN.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// CounterVec counts by label values, safe for concurrent use; a label set
// is a series from its first Add on, even of 0.
type CounterVec struct {
	desc
	mu     sync.Mutex
	series []counted // a handful: a list is all it needs
}

type counted struct {
	values []string
	n      uint64
}

// NewCounterVec is a counter family with the given label names.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{desc: desc{name, help, labels}}
}

// Add adds n to the series of values, one per label name.
func (c *CounterVec) Add(n uint64, values ...string) {
	if len(values) != len(c.labels) {
		panic("metrics: " + c.name + " takes " + strconv.Itoa(len(c.labels)) + " label values")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.series {
		if slices.Equal(c.series[i].values, values) {
			c.series[i].n += n
			return
		}
	}
	c.series = append(c.series, counted{values: slices.Clone(values), n: n})
}

// Inc adds one.
func (c *CounterVec) Inc(values ...string) { c.Add(1, values...) }

// Family is the counters as they stand.
func (c *CounterVec) Family() Family {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := Family{Name: c.name, Help: c.help, Type: Counter}
	for _, s := range c.series {
		f.Samples = append(f.Samples, Sample{Labels: c.labelled(s.values), Value: float64(s.n)})
	}
	return f
}
