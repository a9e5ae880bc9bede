package metrics

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// runway writes the Prometheus text format itself: the client library and
// its procfs reader cost every runway process a few milliseconds of
// package init, and /metrics needs gauges and counters only.

// ContentType is the text exposition format, version 0.0.4, the one every
// Prometheus scrapes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Type is a family's metric type: runway exports gauges and counters only.
type Type string

const (
	Gauge   Type = "gauge"
	Counter Type = "counter"
)

// Label is one label of a sample.
type Label struct{ Name, Value string }

// Sample is one series' value.
type Sample struct {
	Labels []Label
	Value  float64
}

// Family is a metric name with its help, type and samples. Families of
// one name from several sources are one family in the exposition.
type Family struct {
	Name, Help string
	Type       Type
	Samples    []Sample
}

// Source gives its families at each scrape.
type Source func() []Family

// Handler serves the families of every source in the text format,
// gzipped when the scraper accepts it (Prometheus does). The text format
// only: Prometheus negotiates it when OpenMetrics is not offered.
func Handler(sources ...Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var fams []Family
		for _, s := range sources {
			fams = append(fams, s()...)
		}
		body := AppendText(nil, fams)
		w.Header().Set("Content-Type", ContentType)
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

// acceptsGzip tells whether an Accept-Encoding header lists gzip without
// refusing it (q=0).
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

// AppendText appends fams to b in the text format: families sorted by
// name, one HELP and TYPE each (the first family of a name gives them),
// labels sorted by name, samples by their label values, a label set seen
// twice in a family written once (the first in that order), families
// without samples left out.
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
	b = append(b, "# HELP "...)
	b = append(b, f.Name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.Help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.Name...)
	b = append(b, ' ')
	b = append(b, cmp.Or(f.Type, Gauge)...)
	b = append(b, '\n')
	// One label set twice would make Prometheus refuse the sample; two
	// values that differ only in bytes that are not UTF-8 are one set
	// once written.
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

// appendEscaped escapes a label value (quote true) or a HELP text as the
// text format has it: backslash, newline and, in a label value, the
// double quote. A run of bytes that is not UTF-8 becomes one U+FFFD, as
// Prometheus refuses a label value that is not UTF-8.
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

// AppendFloat writes a sample value as Prometheus reads it: the shortest
// representation that reads back exactly, +Inf, -Inf, NaN.
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

// CounterVec counts by label values, safe for concurrent use. A label set
// is a series from its first Add on, even an Add of 0.
type CounterVec struct {
	name, help string
	labels     []string

	mu     sync.Mutex
	series []counted // a handful: a list is all it needs
}

type counted struct {
	values []string
	n      uint64
}

// NewCounterVec is a counter family with the given label names.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{name: name, help: help, labels: labels}
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
		labels := make([]Label, len(c.labels))
		for i, name := range c.labels {
			labels[i] = Label{name, s.values[i]}
		}
		f.Samples = append(f.Samples, Sample{Labels: labels, Value: float64(s.n)})
	}
	return f
}
