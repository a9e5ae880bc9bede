package otlp

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// The edge cases of both formats that runway and pdata must read alike are
// files of the differential fuzz targets' corpus (testdata/fuzz/Fuzz*Pdata),
// each named for what it tries; these build protobuf for the tests here.

// pb builds protobuf by hand: fields of (number, wire type, value).
type pb []byte

func (b pb) varint(num int, x uint64) pb { return appendVarint(appendTag(b, num, wireVarint), x) }
func (b pb) bytes(num int, v []byte) pb  { return appendLen(appendTag(b, num, wireLen), v) }
func (b pb) str(num int, s string) pb    { return b.bytes(num, []byte(s)) }
func (b pb) msg(num int, m pb) pb        { return b.bytes(num, m) }
func (b pb) fixed64(num int, x uint64) pb {
	return binary.LittleEndian.AppendUint64(appendTag(b, num, wireI64), x)
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

// TestDeepValuesAreRefused: attribute values nest at most maxDepth deep in
// either encoding, so a body's nesting costs no more stack than that.
func TestDeepValuesAreRefused(t *testing.T) {
	deepJSON := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"k","value":` +
		strings.Repeat(`{"kvlistValue":{"values":[{"key":"k","value":`, 40) + `{}` + strings.Repeat(`}]}}`, 40) + `}]}]}]}]}`
	for name, body := range map[string]struct {
		enc  Encoding
		body []byte
	}{
		"proto kvlists": {Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepValue(maxDepth+1)))))},
		"proto arrays":  {Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepArray(40)))))},
		"json kvlists":  {JSON, []byte(deepJSON)},
	} {
		if _, err := Decode(Logs, body.enc, body.body, "h", weight); !errors.Is(err, errDepth) {
			t.Errorf("%s: %v, want %v", name, err, errDepth)
		}
	}
	if _, err := Decode(Logs, Protobuf, logsOf(claudeRecord(pb{}.msg(6, kv("deep", deepValue(maxDepth))))), "h", weight); err != nil {
		t.Errorf("%d kvlists deep: %v", maxDepth, err)
	}
}
