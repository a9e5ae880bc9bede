package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Signal is what an OTLP request carries, named as in its path.
type Signal string

const (
	Metrics Signal = "metrics"
	Logs    Signal = "logs"
	Traces  Signal = "traces"
)

// Encoding is an OTLP/HTTP body's encoding.
type Encoding string

const (
	Protobuf Encoding = "protobuf"
	JSON     Encoding = "json"
)

// Decode reads one export request and maps what runway counts; a body that
// is not one is an error that says why. Traces are checked at their top
// level and dropped. weight is the cache-read weight.
func Decode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
	var b Batch
	var err error
	switch sig {
	case Logs:
		var req logsRequest
		if err = read(enc, body, &req, req.readProto); err == nil {
			b = mapLogs(&req, sender, weight)
		}
	case Metrics:
		var req metricsRequest
		if err = read(enc, body, &req, req.readProto); err == nil {
			b = mapMetrics(&req, sender)
		}
	case Traces:
		var req struct {
			ResourceSpans json.RawMessage `json:"resourceSpans"`
		}
		err = read(enc, body, &req, func(b []byte) error { return eachField(b, skipField) })
	default:
		return Batch{}, fmt.Errorf("unknown signal %q", sig)
	}
	if errors.Is(err, errTooMany) {
		return Batch{}, err
	}
	if err != nil {
		return Batch{}, fmt.Errorf("not an OTLP %s body: %w", enc, err)
	}
	return b, nil
}

func read(enc Encoding, body []byte, req any, readProto func([]byte) error) error {
	if enc == JSON {
		return readJSON(body, req)
	}
	return readProto(body)
}

// The few OTLP messages runway maps, only the fields it reads; the
// protobuf reader (proto.go) and encoding/json (the tags, json.go) fill
// them alike.

type logsRequest struct {
	Resources []resourceLogs `json:"resourceLogs"`
}

type resourceLogs struct {
	Resource resource    `json:"resource"`
	Scopes   []scopeLogs `json:"scopeLogs"`
	// Old is the scopes an exporter older than OTLP 1.0 sent, read when
	// Scopes is empty; in JSON only, as the collector reads them.
	Old []scopeLogs `json:"deprecatedScopeLogs"`
}

type resource struct {
	Attrs attrs `json:"attributes"`
}

type scopeLogs struct {
	Records []logRecord `json:"logRecords"`
}

type logRecord struct {
	Time      nanos  `json:"timeUnixNano"`
	Observed  nanos  `json:"observedTimeUnixNano"`
	Body      value  `json:"body"`
	Attrs     attrs  `json:"attributes"`
	EventName string `json:"eventName"`
}

type metricsRequest struct {
	Resources []resourceMetrics `json:"resourceMetrics"`
}

type resourceMetrics struct {
	Resource resource       `json:"resource"`
	Scopes   []scopeMetrics `json:"scopeMetrics"`
	Old      []scopeMetrics `json:"deprecatedScopeMetrics"`
}

type scopeMetrics struct {
	Metrics []metric `json:"metrics"`
}

type metric struct {
	Name string `json:"name"`
	Sum  *sum   `json:"sum"` // nil when the metric is not a sum
}

type sum struct {
	Points      []numberPoint `json:"dataPoints"`
	Temporality temporality   `json:"aggregationTemporality"`
}

type temporality int32

const cumulative temporality = 2

type numberPoint struct {
	Attrs    attrs   `json:"attributes"`
	Start    nanos   `json:"startTimeUnixNano"`
	At       nanos   `json:"timeUnixNano"`
	AsInt    integer `json:"asInt"`
	AsDouble double  `json:"asDouble"`
}

// nanos is a time in Unix nanoseconds.
type nanos uint64

// integer and double are a data point's value or an attribute's number;
// set says it was sent.
type integer struct {
	v   int64
	set bool
}

type double struct {
	v   float64
	set bool
}

// attrs are attributes in the order sent; a key sent twice is read at
// its first place, as the OpenTelemetry data model does.
type attrs []keyValue

type keyValue struct {
	Key   string `json:"key"`
	Value value  `json:"value"`
}

func (a attrs) get(key string) (*value, bool) {
	for i := range a {
		if a[i].Key == key {
			return &a[i].Value, true
		}
	}
	return nil, false
}

type valueKind uint8

const (
	valueEmpty valueKind = iota
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
	kind valueKind
	str  string     // a string, or bytes
	num  uint64     // an int (two's complement), a bool (0 or 1), a double's bits
	list *valueList // an array or a map
}

type valueList struct {
	array []value
	kv    attrs
}

func (v *value) int() int64     { return int64(v.num) }
func (v *value) float() float64 { return math.Float64frombits(v.num) }

// asString is a value as text, as the OpenTelemetry data model writes it
// (a series' identity hashes it, so it must not change): numbers in the
// JSON style, bytes in base64, arrays and maps as JSON.
func (v *value) asString() string {
	switch v.kind {
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
	switch v.kind {
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
			out[v.list.kv[i].Key] = v.list.kv[i].Value.raw()
		}
		return out
	}
	return nil
}

// formatDouble writes a double as ECMAScript does, as encoding/json does
// a finite one.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	b, _ := json.Marshal(f)
	return string(b)
}
