package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pb builds protobuf by hand: fields of (number, wire type, value).
type pb []byte

func (b pb) varint(num int, x uint64) pb { return appendVarint(appendTag(b, num, wireVarint), x) }
func (b pb) bytes(num int, v []byte) pb  { return appendLen(appendTag(b, num, wireLen), v) }
func (b pb) str(num int, s string) pb    { return b.bytes(num, []byte(s)) }
func (b pb) msg(num int, m pb) pb        { return b.bytes(num, m) }
func (b pb) fixed64(num int, x uint64) pb {
	return binary.LittleEndian.AppendUint64(appendTag(b, num, wireI64), x)
}
func (b pb) fixed32(num int, x uint32) pb {
	return binary.LittleEndian.AppendUint32(appendTag(b, num, wireI32), x)
}
func (b pb) raw(x ...byte) pb { return append(b, x...) }

func kv(key string, v pb) pb { return pb{}.str(1, key).msg(2, v) }
func strVal(s string) pb     { return pb{}.str(1, s) }
func intVal(n int64) pb      { return pb{}.varint(3, uint64(n)) }

// claudeRecord is an api_request log record with the given extra fields.
func claudeRecord(extra pb) pb {
	r := pb{}.fixed64(1, uint64(t0.UnixNano())).
		msg(5, strVal("claude_code.api_request")).
		msg(6, kv("event.name", strVal("api_request"))).
		msg(6, kv("session.id", strVal("s1"))).
		msg(6, kv("request_id", strVal("r1"))).
		msg(6, kv("input_tokens", intVal(10))).
		msg(6, kv("output_tokens", intVal(20)))
	return append(r, extra...)
}

func logsOf(records ...pb) pb {
	sl := pb{}
	for _, r := range records {
		sl = sl.msg(2, r)
	}
	return pb{}.msg(1, pb{}.msg(1, pb{}.msg(1, kv("host.name", strVal("box")))).msg(2, sl))
}

func pointOf(extra pb) pb {
	p := pb{}.msg(7, kv("session.id", strVal("s1"))).msg(7, kv("type", strVal("output"))).
		fixed64(2, uint64(t0.UnixNano())).fixed64(3, uint64(t0.UnixNano()+6e10)).
		fixed64(4, math.Float64bits(42))
	return append(p, extra...)
}

func metricsOf(metric pb) pb {
	return pb{}.msg(1, pb{}.msg(2, pb{}.msg(2, metric)))
}

func tokenSum(temporality uint64, points ...pb) pb {
	s := pb{}.varint(2, temporality).varint(3, 1)
	for _, p := range points {
		s = s.msg(1, p)
	}
	return pb{}.str(1, "claude_code.token.usage").msg(7, s)
}

type edge struct {
	name string
	sig  Signal
	enc  Encoding
	body []byte
}

var edges = []edge{
	{"proto logs", Logs, Protobuf, logsOf(claudeRecord(nil))},
	{"proto old scope field", Logs, Protobuf, pb{}.msg(1, pb{}.msg(1000, pb{}.msg(2, claudeRecord(nil))))},
	{"proto both scope fields", Logs, Protobuf, pb{}.msg(1, pb{}.msg(2, pb{}).msg(1000, pb{}.msg(2, claudeRecord(nil))))},
	{"proto resource twice merges", Logs, Protobuf, pb{}.msg(1, pb{}.msg(1, pb{}.msg(1, kv("a", strVal("b")))).msg(1, pb{}.msg(1, kv("host.name", strVal("h2")))).msg(2, pb{}.msg(2, claudeRecord(nil))))},
	{"proto duplicate attribute", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("session.id", strVal("s2")))))},
	{"proto body twice", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(5, pb{}).msg(5, intVal(3))))},
	{"proto value replaced", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, pb{}.str(1, "output_tokens").msg(2, intVal(5)).msg(2, strVal("7")))))},
	{"proto kvlist and array", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("x", pb{}.msg(6, pb{}.msg(1, kv("k", pb{}.msg(5, pb{}.msg(1, intVal(1)).msg(1, pb{}.bytes(7, []byte{0, 1}))))))))))},
	{"proto strindex", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("output_tokens", pb{}.varint(8, 3)))))},
	{"proto empty bytes", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("b", pb{}.bytes(7, nil)))))},
	{"proto trace id 16", Logs, Protobuf, logsOf(claudeRecord(pb{}.bytes(9, make([]byte, 16)).bytes(10, make([]byte, 8))))},
	{"proto trace id 15", Logs, Protobuf, logsOf(claudeRecord(pb{}.bytes(9, make([]byte, 15))))},
	{"proto span id empty", Logs, Protobuf, logsOf(claudeRecord(pb{}.bytes(10, nil)))},
	{"proto flags as varint", Logs, Protobuf, logsOf(claudeRecord(pb{}.varint(8, 1)))},
	{"proto flags fixed32", Logs, Protobuf, logsOf(claudeRecord(pb{}.fixed32(8, 1)))},
	{"proto time as varint", Logs, Protobuf, logsOf(claudeRecord(pb{}.varint(1, 1)))},
	{"proto unknown fields", Logs, Protobuf, logsOf(claudeRecord(pb{}.varint(99, 1).fixed32(98, 1).fixed64(97, 1).str(96, "x")))},
	{"proto empty group", Logs, Protobuf, logsOf(append(pb{}.raw(0x9b, 0x06, 0x9c, 0x06), claudeRecord(nil)...))},
	{"proto empty group last", Logs, Protobuf, logsOf(claudeRecord(pb{}.raw(0x9b, 0x06, 0x9c, 0x06)))},
	{"proto group with field", Logs, Protobuf, logsOf(append(pb{}.raw(0x9b, 0x06, 0x08, 0x01, 0x9c, 0x06), claudeRecord(nil)...))},
	{"proto end group", Logs, Protobuf, logsOf(claudeRecord(pb{}.raw(0x9c, 0x06)))},
	{"proto wire type 6", Logs, Protobuf, logsOf(claudeRecord(pb{}.raw(0x9e, 0x06)))},
	{"proto field 0", Logs, Protobuf, pb{}.raw(0x02, 0x00)},
	{"proto huge field number", Logs, Protobuf, pb{}.raw(0x8a, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00)},
	{"proto varint 10 bytes", Logs, Protobuf, pb{}.raw(0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)},
	{"proto varint 11 bytes", Logs, Protobuf, pb{}.raw(0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)},
	{"proto length past end", Logs, Protobuf, pb{}.raw(0x0a, 0x05, 0x00)},
	{"proto huge length", Logs, Protobuf, pb{}.raw(0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)},
	{"proto deep kvlist", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepValue(32)))))},
	{"proto too deep kvlist", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepValue(33)))))},
	{"proto metrics", Metrics, Protobuf, metricsOf(tokenSum(1, pointOf(nil)))},
	{"proto metrics int", Metrics, Protobuf, metricsOf(tokenSum(2, pointOf(pb{}.fixed64(6, 7))))},
	{"proto metrics no value", Metrics, Protobuf, metricsOf(tokenSum(1, pb{}.msg(7, kv("session.id", strVal("s1"))).fixed64(3, uint64(t0.UnixNano()))))},
	{"proto sum then gauge", Metrics, Protobuf, metricsOf(append(tokenSum(1, pointOf(nil)), pb{}.msg(5, pb{})...))},
	{"proto sum twice", Metrics, Protobuf, metricsOf(append(tokenSum(1, pointOf(nil)), pb{}.msg(7, pb{}.msg(1, pointOf(nil)))...))},
	{"proto metadata after sum", Metrics, Protobuf, metricsOf(append(tokenSum(1, pointOf(nil)), pb{}.msg(12, kv("a", strVal("b")))...))},
	{"proto histogram packed", Metrics, Protobuf, metricsOf(pb{}.msg(9, pb{}.msg(1, pb{}.bytes(6, make([]byte, 16)).bytes(7, make([]byte, 8)))))},
	{"proto histogram packed 7", Metrics, Protobuf, metricsOf(pb{}.msg(9, pb{}.msg(1, pb{}.bytes(6, make([]byte, 7)))))},
	{"proto histogram unpacked", Metrics, Protobuf, metricsOf(pb{}.msg(9, pb{}.msg(1, pb{}.fixed64(6, 1).fixed64(7, 1))))},
	{"proto histogram varint counts", Metrics, Protobuf, metricsOf(pb{}.msg(9, pb{}.msg(1, pb{}.varint(6, 1))))},
	{"proto exp buckets", Metrics, Protobuf, metricsOf(pb{}.msg(10, pb{}.msg(1, pb{}.msg(8, pb{}.varint(1, 3).bytes(2, []byte{1, 0x81, 1}).varint(2, 4)))))},
	{"proto exp buckets bad packed", Metrics, Protobuf, metricsOf(pb{}.msg(10, pb{}.msg(1, pb{}.msg(8, pb{}.bytes(2, []byte{0x81})))))},
	{"proto summary", Metrics, Protobuf, metricsOf(pb{}.msg(11, pb{}.msg(1, pb{}.msg(6, pb{}.fixed64(1, 0).fixed64(2, 0)).varint(8, 0))))},
	{"proto exemplar bad span id", Metrics, Protobuf, metricsOf(tokenSum(1, pointOf(pb{}.msg(5, pb{}.bytes(4, make([]byte, 7))))))},
	{"proto traces", Traces, Protobuf, pb{}.msg(1, pb{}.msg(2, pb{}.msg(2, pb{}.bytes(1, make([]byte, 16)).fixed32(16, 1).msg(15, pb{}.varint(3, 2)).msg(13, pb{}.bytes(2, make([]byte, 8)).fixed32(6, 1)))))},
	{"proto traces bad parent", Traces, Protobuf, pb{}.msg(1, pb{}.msg(2, pb{}.msg(2, pb{}.bytes(4, make([]byte, 9)))))},
	{"proto traces flags varint", Traces, Protobuf, pb{}.msg(1, pb{}.msg(2, pb{}.msg(2, pb{}.varint(16, 1))))},

	{"json null", Logs, JSON, []byte(`null`)},
	{"json empty", Logs, JSON, []byte(``)},
	{"json trailing", Logs, JSON, []byte(`{"resourceLogs":[]} x`)},
	{"json snake case", Logs, JSON, []byte(`{"resource_logs":[{"scope_logs":[{"log_records":[{"time_unix_nano":1795176000000000000,"attributes":[{"key":"event.name","value":{"string_value":"api_request"}},{"key":"session.id","value":{"stringValue":"s"}},{"key":"input_tokens","value":{"int_value":"5"}}]}]}]}]}`)},
	{"json nulls", Logs, JSON, []byte(`{"resourceLogs":[null,{"resource":null,"scopeLogs":null,"schemaUrl":null},{"scopeLogs":[{"logRecords":[{"body":null,"attributes":[null,{"key":null,"value":null}],"eventName":null,"traceId":""}]}]}]}`)},
	{"json null time", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":null}]}]}]}`)},
	{"json time float", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":1.5}]}]}]}`)},
	{"json time negative", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"-1"}]}]}]}`)},
	{"json severity name", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"SEVERITY_NUMBER_INFO"}]}]}]}`)},
	{"json severity bad name", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"INFO"}]}]}]}`)},
	{"json severity string number", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"9"}]}]}]}`)},
	{"json trace id", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708"}]}]}]}`)},
	{"json trace id short", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"0102"}]}]}]}`)},
	{"json trace id escaped", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"spanId":"\u0030102030405060708"}]}]}]}`)},
	{"json trace id null", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"spanId":null}]}]}]}`)},
	{"json bytes", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"bytesValue":"AAE="}},{"key":"c","value":{"bytesValue":""}}]}]}]}]}`)},
	{"json bytes bad", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"bytesValue":"A"}}]}]}]}]}`)},
	{"json bool null", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"boolValue":null}}]}]}]}]}`)},
	{"json double string", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"doubleValue":"NaN"}}]}]}]}]}`)},
	{"json double huge", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"doubleValue":1e400}}]}]}]}]}`)},
	{"json int as float", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"b","value":{"intValue":1e3}}]}]}]}]}`)},
	{"json empty key top", Logs, JSON, []byte(`{"":1,"resourceLogs":[]}`)},
	{"json duplicate array", Logs, JSON, []byte(`{"resourceLogs":[{}],"resourceLogs":[{}]}`)},
	{"json unknown field", Logs, JSON, []byte(`{"resourceLogs":[{"x":{"y":[1,2,{"z":null}]}}]}`)},
	{"json object for array", Logs, JSON, []byte(`{"resourceLogs":{}}`)},
	{"json string for object", Logs, JSON, []byte(`{"resourceLogs":[{"resource":"x"}]}`)},
	{"json metrics cumulative name", Metrics, JSON, []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"claude_code.token.usage","sum":{"aggregationTemporality":"AGGREGATION_TEMPORALITY_CUMULATIVE","dataPoints":[{"asInt":"5","timeUnixNano":"1795176060000000000","attributes":[{"key":"session.id","value":{"stringValue":"s"}},{"key":"type","value":{"stringValue":"input"}},{"key":"x","value":{"kvlistValue":{"values":[{"key":"b","value":{"doubleValue":0.1}},{"key":"a","value":{"arrayValue":{"values":[{"boolValue":true},{}]}}}]}}}]}]}}]}]}]}`)},
	{"json histogram", Metrics, JSON, []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"histogram":{"dataPoints":[{"bucketCounts":["1",2],"explicitBounds":[0.5,"1"],"sum":3,"min":1,"max":2}]}}]}]}]}`)},
	{"json histogram null count", Metrics, JSON, []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"histogram":{"dataPoints":[{"bucketCounts":[null]}]}}]}]}]}`)},
	{"json exp histogram", Metrics, JSON, []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"exponentialHistogram":{"dataPoints":[{"scale":-3,"positive":{"offset":"-2","bucketCounts":[1]},"zeroThreshold":0}]}}]}]}]}`)},
	{"json traces", Traces, JSON, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","kind":"SPAN_KIND_SERVER","status":{"code":"STATUS_CODE_ERROR"},"links":[{"flags":1}],"events":[{"name":"e"}]}]}]}]}`)},
	{"json traces bad kind", Traces, JSON, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"SERVER"}]}]}]}`)},
	{"json old scope field", Logs, JSON, []byte(`{"resourceLogs":[{"deprecatedScopeLogs":[{"logRecords":[{"timeUnixNano":"1795176000000000000","attributes":[{"key":"event.name","value":{"stringValue":"api_request"}},{"key":"session.id","value":{"stringValue":"s"}},{"key":"input_tokens","value":{"intValue":"5"}}]}]}]}]}`)},
	{"json old metrics scope field", Metrics, JSON, []byte(`{"resourceMetrics":[{"deprecated_scope_metrics":[{"metrics":[{"name":"claude_code.token.usage","sum":{"aggregationTemporality":1,"dataPoints":[{"asDouble":5,"timeUnixNano":"1795176060000000000","attributes":[{"key":"session.id","value":{"stringValue":"s"}},{"key":"type","value":{"stringValue":"input"}}]}]}}]}]}]}`)},
	{"proto old metrics scope field", Metrics, Protobuf, pb{}.msg(1, pb{}.msg(1000, pb{}.msg(2, tokenSum(1, pointOf(nil)))))},
	{"proto deep array", Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepArray(40)))))},
	{"json null array and kvlist", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"a","value":{"arrayValue":null}},{"key":"m","value":{"kvlistValue":null}}]}]}]}]}`)},
	{"json two members of a oneof", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"session.id","value":{"intValue":"5","stringValue":"s"}}]}]}]}]}`)},
	{"json key in another case", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"TimeUnixNano":"1795176000000000000"}]}]}]}`)},
	{"json deep kvlist", Logs, JSON, []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"k","value":` + strings.Repeat(`{"kvlistValue":{"values":[{"key":"k","value":`, 40) + `{}` + strings.Repeat(`}]}}`, 40) + `}]}]}]}]}`)},
	{"json metrics null time", Metrics, JSON, []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"claude_code.token.usage","sum":{"dataPoints":[{"asInt":"5","timeUnixNano":null}]}}]}]}]}`)},
}

// deepArray is n arrays, each holding the next.
func deepArray(n int) pb {
	v := strVal("leaf")
	for range n {
		v = pb{}.msg(5, pb{}.msg(1, v))
	}
	return v
}

// deepValue is n kvlists, each holding the next.
func deepValue(n int) pb {
	v := strVal("leaf")
	for range n {
		v = pb{}.msg(6, pb{}.msg(1, kv("k", v)))
	}
	return v
}

// Hand-made bodies at the edges of the formats read as pdata reads them
// (or differ as differential documents).
func TestMatchesPdataAtTheEdges(t *testing.T) {
	for _, e := range edges {
		t.Run(e.name, func(t *testing.T) {
			differential(t, e.sig, e.enc, e.body)
		})
	}
}

// TestWriteEdgeCorpus writes the edge cases into the fuzz corpus when
// RUNWAY_WRITE_CORPUS is set.
func TestWriteEdgeCorpus(t *testing.T) {
	if os.Getenv("RUNWAY_WRITE_CORPUS") == "" {
		t.Skip("set RUNWAY_WRITE_CORPUS=1 to rewrite testdata/fuzz")
	}
	target := map[Signal]map[Encoding]string{
		Logs:    {Protobuf: "FuzzLogsProtoMatchesPdata", JSON: "FuzzLogsJSONMatchesPdata"},
		Metrics: {Protobuf: "FuzzMetricsProtoMatchesPdata", JSON: "FuzzMetricsJSONMatchesPdata"},
		Traces:  {Protobuf: "FuzzTracesProtoMatchesPdata", JSON: "FuzzTracesJSONMatchesPdata"},
	}
	all := edges
	for _, name := range []string{"claude_logs.json", "codex_logs.json", "claude_metrics.json"} {
		sig := Logs
		if name == "claude_metrics.json" {
			sig = Metrics
		}
		js := fixture(t, name)
		all = append(all, edge{"real " + name, sig, JSON, js}, edge{"real " + name, sig, Protobuf, asProto(t, sig, js)})
	}
	all = append(all, edge{"real traces", Traces, JSON, traceExport(t, JSON)}, edge{"real traces", Traces, Protobuf, traceExport(t, Protobuf)})
	for i, e := range all {
		dir := filepath.Join("testdata", "fuzz", target[e.sig][e.enc])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("edge-%02d", i)
		if i >= len(edges) {
			name = fmt.Sprintf("real-%02d", i-len(edges))
		}
		if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", e.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeepValuesAreRefused: attribute values nest at most maxDepth deep in
// either encoding, so a body's nesting costs no more stack than that.
func TestDeepValuesAreRefused(t *testing.T) {
	for _, e := range edges {
		if slices.Contains([]string{"proto too deep kvlist", "proto deep array", "json deep kvlist"}, e.name) {
			if _, err := Decode(e.sig, e.enc, e.body, "h", weight); !errors.Is(err, errDepth) {
				t.Errorf("%s: %v, want %v", e.name, err, errDepth)
			}
		}
	}
	if _, err := Decode(Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepValue(maxDepth))))), "h", weight); err != nil {
		t.Errorf("%d kvlists deep: %v", maxDepth, err)
	}
}
