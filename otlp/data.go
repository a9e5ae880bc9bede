package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// What runway keeps of an export request: resource attributes, log
// records (times, body, attributes, event name) and metrics (name, type,
// and a sum's temporality and number data points). Everything else is
// checked and dropped.

type valueType uint8

const (
	valueEmpty valueType = iota
	valueStr
	valueBool
	valueInt
	valueDouble
	valueBytes
	valueArray
	valueMap
)

// value is an attribute value (AnyValue), small: a request holds
// thousands.
type value struct {
	typ  valueType
	str  string // a string, or bytes
	num  uint64 // an int (two's complement), a bool (0 or 1), a double's bits
	list *list  // an array or a map
}

type list struct {
	array []value
	kv    attrs
}

func (v *value) int() int64     { return int64(v.num) }
func (v *value) float() float64 { return math.Float64frombits(v.num) }

type keyValue struct {
	key   string
	value value
}

// attrs are attributes in the order sent; a key sent twice is read at
// its first place, as the reference data model does.
type attrs []keyValue

func (a attrs) get(key string) (*value, bool) {
	for i := range a {
		if a[i].key == key {
			return &a[i].value, true
		}
	}
	return nil, false
}

type resource struct{ attrs attrs }

type logRecord struct {
	time, observed uint64
	body           value
	attrs          attrs
	eventName      string
}

type scopeLogs struct{ records []logRecord }

type resourceLogs struct {
	resource resource
	// scopes, or (an exporter older than OTLP 1.0) old when scopes is
	// empty. Only the JSON form's old field is read: the collector reads
	// the protobuf one and drops it, and runway reads what it reads.
	scopes, old []scopeLogs
}

type logsData struct{ resources []resourceLogs }

type metricType uint8

const (
	metricEmpty metricType = iota
	metricGauge
	metricSum
	metricHistogram
	metricExponentialHistogram
	metricSummary
)

type pointType uint8

const (
	pointEmpty pointType = iota
	pointInt
	pointDouble
)

type numberPoint struct {
	attrs     attrs
	start, at uint64
	typ       pointType
	int       int64
	float     float64
}

type sum struct {
	temporality int32
	points      []numberPoint
}

type metric struct {
	name string
	typ  metricType
	sum  sum // when typ is metricSum
}

type scopeMetrics struct{ metrics []metric }

type resourceMetrics struct {
	resource    resource
	scopes, old []scopeMetrics
}

type metricsData struct{ resources []resourceMetrics }

const temporalityCumulative = 2

// The sinks: each message type takes its fields. A singular message
// field sent twice is merged, a oneof's member replaces the one before,
// a repeated one appends: protobuf's rules, which the JSON reader
// follows too.

func (v *value) set(num int32, s scalar) {
	switch num {
	case fAnyString:
		*v = value{typ: valueStr, str: s.String()}
	case fAnyBool:
		*v = value{typ: valueBool}
		if s.u != 0 {
			v.num = 1
		}
	case fAnyInt:
		*v = value{typ: valueInt, num: s.u}
	case fAnyDouble:
		*v = value{typ: valueDouble, num: math.Float64bits(s.f)}
	case fAnyBytes:
		*v = value{typ: valueBytes, str: s.String()}
	case fAnyStrindex:
		*v = value{} // a profiles dictionary index: no value here
	}
}

func (v *value) msg(num int32) sink {
	switch num {
	case fAnyArray:
		*v = value{typ: valueArray, list: &list{}}
		return (*arrayValue)(v.list)
	case fAnyKvlist:
		*v = value{typ: valueMap, list: &list{}}
		return (*kvlist)(v.list)
	}
	return nil
}

type arrayValue list

func (a *arrayValue) set(int32, scalar) {}
func (a *arrayValue) msg(int32) sink {
	a.array = append(a.array, value{})
	return &a.array[len(a.array)-1]
}

type kvlist list

func (l *kvlist) set(int32, scalar) {}
func (l *kvlist) msg(int32) sink    { return l.kv.msg(1) }

func (a *attrs) set(int32, scalar) {}
func (a *attrs) msg(int32) sink {
	*a = append(*a, keyValue{})
	return &(*a)[len(*a)-1]
}

func (kv *keyValue) set(num int32, s scalar) {
	if num == 1 {
		kv.key = s.String()
	}
}

func (kv *keyValue) msg(num int32) sink {
	if num == 2 {
		return &kv.value
	}
	return nil
}

// reserve sizes a repeated field before it is read (the protobuf reader
// counts its elements first): attributes come by the dozen, and growing
// a slice of them element by element was most of a request's cost. Only
// the fixed levels of a request reserve, not the attribute values nested
// up to 100 deep, so no byte is counted more than a few times.
type reserver interface {
	reserve(num int32, n int)
}

func (r *resource) reserve(num int32, n int) {
	if num == 1 {
		r.attrs = slices.Grow(r.attrs, n)
	}
}

func (lr *logRecord) reserve(num int32, n int) {
	if num == fLogAttrs {
		lr.attrs = slices.Grow(lr.attrs, n)
	}
}

func (s *scopeLogs) reserve(num int32, n int) {
	if num == 2 {
		s.records = slices.Grow(s.records, n)
	}
}

func (s *sum) reserve(num int32, n int) {
	if num == 1 {
		s.points = slices.Grow(s.points, n)
	}
}

func (p *numberPoint) reserve(num int32, n int) {
	if num == fPointAttrs {
		p.attrs = slices.Grow(p.attrs, n)
	}
}

func (r *resource) set(int32, scalar) {}
func (r *resource) msg(num int32) sink {
	if num == 1 {
		return r.attrs.msg(num)
	}
	return nil
}

func (d *logsData) set(int32, scalar) {}
func (d *logsData) msg(int32) sink {
	d.resources = append(d.resources, resourceLogs{})
	return &d.resources[len(d.resources)-1]
}

func (r *resourceLogs) set(int32, scalar) {}
func (r *resourceLogs) msg(num int32) sink {
	switch num {
	case 1:
		return &r.resource
	case 2:
		r.scopes = append(r.scopes, scopeLogs{})
		return &r.scopes[len(r.scopes)-1]
	case 1000:
		r.old = append(r.old, scopeLogs{})
		return &r.old[len(r.old)-1]
	}
	return nil
}

// scopeList is the scopes an exporter sent, under the new field or the
// old.
func (r *resourceLogs) scopeList() []scopeLogs {
	if len(r.scopes) == 0 {
		return r.old
	}
	return r.scopes
}

func (s *scopeLogs) set(int32, scalar) {}
func (s *scopeLogs) msg(num int32) sink {
	if num == 2 {
		s.records = append(s.records, logRecord{})
		return &s.records[len(s.records)-1]
	}
	return nil
}

func (lr *logRecord) set(num int32, s scalar) {
	switch num {
	case fLogTime:
		lr.time = s.u
	case fLogObserved:
		lr.observed = s.u
	case fLogEventName:
		lr.eventName = s.String()
	}
}

func (lr *logRecord) msg(num int32) sink {
	switch num {
	case fLogBody:
		return &lr.body
	case fLogAttrs:
		return lr.attrs.msg(num)
	}
	return nil
}

func (d *metricsData) set(int32, scalar) {}
func (d *metricsData) msg(int32) sink {
	d.resources = append(d.resources, resourceMetrics{})
	return &d.resources[len(d.resources)-1]
}

func (r *resourceMetrics) set(int32, scalar) {}
func (r *resourceMetrics) msg(num int32) sink {
	switch num {
	case 1:
		return &r.resource
	case 2:
		r.scopes = append(r.scopes, scopeMetrics{})
		return &r.scopes[len(r.scopes)-1]
	case 1000:
		r.old = append(r.old, scopeMetrics{})
		return &r.old[len(r.old)-1]
	}
	return nil
}

func (r *resourceMetrics) scopeList() []scopeMetrics {
	if len(r.scopes) == 0 {
		return r.old
	}
	return r.scopes
}

func (s *scopeMetrics) set(int32, scalar) {}
func (s *scopeMetrics) msg(num int32) sink {
	if num == 2 {
		s.metrics = append(s.metrics, metric{})
		return &s.metrics[len(s.metrics)-1]
	}
	return nil
}

func (m *metric) set(num int32, s scalar) {
	if num == fMetricName {
		m.name = s.String()
	}
}

func (m *metric) msg(num int32) sink {
	var typ metricType
	switch num {
	case fMetricGauge:
		typ = metricGauge
	case fMetricSum:
		typ = metricSum
	case fMetricHistogram:
		typ = metricHistogram
	case fMetricExpHist:
		typ = metricExponentialHistogram
	case fMetricSummary:
		typ = metricSummary
	default:
		return nil // metadata
	}
	// The data is a oneof: a member replaces the one sent before.
	m.typ, m.sum = typ, sum{}
	if typ == metricSum {
		return &m.sum
	}
	return nil
}

func (s *sum) set(num int32, v scalar) {
	if num == 2 {
		s.temporality = int32(v.u)
	}
}

func (s *sum) msg(num int32) sink {
	if num == 1 {
		s.points = append(s.points, numberPoint{})
		return &s.points[len(s.points)-1]
	}
	return nil
}

func (p *numberPoint) set(num int32, s scalar) {
	switch num {
	case fPointStart:
		p.start = s.u
	case fPointTime:
		p.at = s.u
	case fPointDouble:
		p.typ, p.float, p.int = pointDouble, s.f, 0
	case fPointInt:
		p.typ, p.int, p.float = pointInt, int64(s.u), 0
	}
}

func (p *numberPoint) msg(num int32) sink {
	if num == fPointAttrs {
		return p.attrs.msg(num)
	}
	return nil
}

// asString is a value as text, as the OpenTelemetry data model writes it
// (a series' identity hashes it, so it must not change): numbers in the
// JSON style, bytes in base64, arrays and maps as JSON.
func (v *value) asString() string {
	switch v.typ {
	case valueStr:
		return v.str
	case valueBool:
		return strconv.FormatBool(v.num != 0)
	case valueInt:
		return strconv.FormatInt(v.int(), 10)
	case valueDouble:
		return formatDouble(v.float())
	case valueBytes:
		return base64.StdEncoding.EncodeToString([]byte(v.str))
	case valueArray, valueMap:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v.raw()) // fails only on NaN or ±Inf, and writes nothing then
		return strings.TrimRight(buf.String(), "\n")
	}
	return ""
}

// raw is the value as plain Go data, for JSON.
func (v *value) raw() any {
	switch v.typ {
	case valueStr:
		return v.str
	case valueBool:
		return v.num != 0
	case valueInt:
		return v.int()
	case valueDouble:
		return v.float()
	case valueBytes:
		if v.str == "" {
			return []byte(nil) // written null, as the data model does
		}
		return []byte(v.str)
	case valueArray:
		out := make([]any, 0, len(v.list.array))
		for i := range v.list.array {
			out = append(out, v.list.array[i].raw())
		}
		return out
	case valueMap:
		out := make(map[string]any, len(v.list.kv))
		for i := range v.list.kv {
			out[v.list.kv[i].key] = v.list.kv[i].value.raw()
		}
		return out
	}
	return nil
}

// formatDouble writes a double as ECMAScript does (and encoding/json).
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}
