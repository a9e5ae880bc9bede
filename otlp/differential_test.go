package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// runway's reader against pdata's (the oracle, oracle_test.go), both
// mapped by mapLogs or mapMetrics: where pdata reads a body, runway reads
// it and maps it the same. The rules for the bodies they may take apart:
//
//   - runway reads only the fields it maps: what pdata refuses elsewhere
//     (an id of the wrong length, a null number, an unknown enum name in
//     a field runway passes over) runway may read;
//   - runway refuses protobuf groups (proto2 only, not in OTLP; pdata
//     skips an empty one) and attribute values nested deeper than
//     maxDepth (pdata takes arrays deeper in protobuf, anything in JSON);
//   - JSON that encoding/json finds malformed, or with a value of another
//     JSON type than its field's (an object for a key), is refused; pdata's
//     iterator reads some of it, often as the zero value;
//   - JSON that is not plain (plainJSON: a key twice in an object, a key
//     spelt otherwise than in lowerCamelCase, an empty key, two members of
//     a oneof) is
//     read differently by each, and only checked not to crash runway;
//   - a JSON string with invalid UTF-8 or a lone surrogate escape is read
//     as encoding/json reads it (U+FFFD), so a series' identity or the
//     reason given for a rejection may differ; the counts, sessions,
//     models and times do not (clean drops U+FFFD and invalid UTF-8
//     alike).
func differential(t *testing.T, sig Signal, enc Encoding, body []byte) {
	got, err := Decode(sig, enc, body, "fuzz", weight)
	want, oerr := oracleDecode(sig, enc, body, "fuzz", weight)
	switch {
	case err != nil && !strings.HasPrefix(err.Error(), "not an OTLP "+string(enc)+" body: "):
		t.Fatalf("error %q does not say what the body is not", err)
	case enc == JSON && !plainJSON(body), oerr != nil:
	case err != nil:
		if !errors.Is(err, errGroup) && !errors.Is(err, errDepth) && !errors.Is(err, errWrongType) {
			t.Fatalf("runway refuses what pdata reads: %v", err)
		}
	default:
		if enc == JSON && (!utf8.Valid(body) || loneSurrogate.Match(body)) && len(got.Points) == len(want.Points) {
			for i := range got.Points {
				got.Points[i].Series, want.Points[i].Series = "", ""
			}
			// An attribute pdata reads as empty is U+FFFD here: a
			// rejection may name another reason, never another count.
			got.Reason, want.Reason = "", ""
		}
		if !sameBatch(got, want) {
			t.Fatalf("runway maps\n%+v\npdata\n%+v", got, want)
		}
	}
}

var loneSurrogate = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// plainJSON says whether body is valid JSON that pdata and encoding/json
// read alike: no object holds a key twice (pdata appends a repeated
// field's second array), a key spelt otherwise than in lowerCamelCase
// (pdata reads snake_case, encoding/json any letter case), an empty key
// (pdata's iterator takes it for the object's end and reads on out of
// step, where encoding/json skips an unknown field), or two members of a
// oneof (pdata keeps the last, runway the first it looks for).
func plainJSON(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	return json.Valid(body) && plainValue(dec)
}

func plainValue(dec *json.Decoder) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if !plainValue(dec) {
				return false
			}
		}
	case json.Delim('{'):
		seen, oneof := map[string]bool{}, 0
		for dec.More() {
			k, _ := dec.Token()
			key := k.(string)
			if key == "" || seen[key] || strings.Contains(key, "_") || slices.ContainsFunc(jsonNames, func(n string) bool { return n != key && strings.EqualFold(n, key) }) {
				return false
			}
			seen[key] = true
			if oneofMembers[key] {
				oneof++
			}
			if !plainValue(dec) {
				return false
			}
		}
		if oneof > 1 {
			return false
		}
	default:
		return true
	}
	_, err = dec.Token() // the closing bracket
	return err == nil
}

var (
	jsonNames = []string{"resourceLogs", "resourceMetrics", "resource", "attributes", "scopeLogs", "scopeMetrics",
		"deprecatedScopeLogs", "deprecatedScopeMetrics", "logRecords", "timeUnixNano", "observedTimeUnixNano", "body",
		"eventName", "metrics", "name", "sum", "dataPoints", "aggregationTemporality", "startTimeUnixNano", "asInt",
		"asDouble", "key", "value", "values", "stringValue", "boolValue", "intValue", "doubleValue", "arrayValue",
		"kvlistValue", "bytesValue", "resourceSpans"}
	oneofMembers = map[string]bool{"stringValue": true, "boolValue": true, "intValue": true, "doubleValue": true,
		"arrayValue": true, "kvlistValue": true, "bytesValue": true, "stringValueStrindex": true, "asInt": true, "asDouble": true,
		"gauge": true, "sum": true, "histogram": true, "exponentialHistogram": true, "summary": true}
)

// sameBatch is reflect.DeepEqual with NaN equal to NaN.
func sameBatch(a, b Batch) bool {
	if len(a.Points) != len(b.Points) {
		return false
	}
	for i := range a.Points {
		if math.IsNaN(a.Points[i].Value) && math.IsNaN(b.Points[i].Value) {
			a.Points[i].Value, b.Points[i].Value = 0, 0
		}
	}
	return reflect.DeepEqual(a, b)
}

// seeds are the real-format requests in testdata in both encodings. The
// committed corpus under testdata/fuzz adds the edge cases, each file named
// for what it tries: add one there as a file of "go test fuzz v1".
func seeds(f *testing.F, sig Signal, enc Encoding) {
	f.Helper()
	names := map[Signal][]string{
		Logs:    {"claude_logs.json", "codex_logs.json"},
		Metrics: {"claude_metrics.json"},
	}[sig]
	for _, name := range names {
		js, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		if enc == JSON {
			f.Add(js)
		} else {
			f.Add(asProto(f, sig, js))
		}
	}
	if sig == Traces {
		f.Add(traceExport(f, enc))
	}
	f.Add([]byte{})
}

// traceExport is a span as an SDK sends it.
func traceExport(tb testing.TB, enc Encoding) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "codex_cli_rs")
	span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.SetName("handle_responses")
	span.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	span.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	span.SetKind(ptrace.SpanKindClient)
	span.Attributes().PutInt("http.response.status_code", 200)
	ev := span.Events().AppendEmpty()
	ev.SetName("retry")
	span.Status().SetCode(ptrace.StatusCodeOk)
	req := ptraceotlp.NewExportRequestFromTraces(td)
	var b []byte
	var err error
	if enc == JSON {
		b, err = req.MarshalJSON()
	} else {
		b, err = req.MarshalProto()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func FuzzLogsProtoMatchesPdata(f *testing.F) {
	seeds(f, Logs, Protobuf)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Logs, Protobuf, body) })
}

func FuzzLogsJSONMatchesPdata(f *testing.F) {
	seeds(f, Logs, JSON)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Logs, JSON, body) })
}

func FuzzMetricsProtoMatchesPdata(f *testing.F) {
	seeds(f, Metrics, Protobuf)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Metrics, Protobuf, body) })
}

func FuzzMetricsJSONMatchesPdata(f *testing.F) {
	seeds(f, Metrics, JSON)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Metrics, JSON, body) })
}

func FuzzTracesProtoMatchesPdata(f *testing.F) {
	seeds(f, Traces, Protobuf)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Traces, Protobuf, body) })
}

func FuzzTracesJSONMatchesPdata(f *testing.F) {
	seeds(f, Traces, JSON)
	f.Fuzz(func(t *testing.T, body []byte) { differential(t, Traces, JSON, body) })
}
