package otlp

// The mapping as it was over the collector's pdata, kept for the tests
// only: the oracle that runway's own reader and mapping are checked
// against (TestMatchesPdataAtTheEdges, the Fuzz*MatchesPdata targets, and
// every test that builds its request with pdata: MapLogs, MapMetrics).

import (
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentrunway/runway/burn"
)

// oracleDecode is Decode as it was, over pdata's unmarshalers.
func oracleDecode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
	var err error
	switch sig {
	case Logs:
		var logs plog.Logs
		if enc == JSON {
			logs, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(body)
		} else {
			logs, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(body)
		}
		if err != nil {
			return Batch{}, err
		}
		return oracleMapLogs(logs, sender, weight), nil
	case Metrics:
		var metrics pmetric.Metrics
		if enc == JSON {
			metrics, err = (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(body)
		} else {
			metrics, err = (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(body)
		}
		if err != nil {
			return Batch{}, err
		}
		return oracleMapMetrics(metrics, sender), nil
	case Traces:
		if enc == JSON {
			_, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
		} else {
			_, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
		}
		return Batch{}, err
	}
	return Batch{}, fmt.Errorf("unknown signal %q", sig)
}

// MapLogs maps logs built with pdata through runway's reader, in both
// encodings, and checks the batch against the oracle's: the tests build
// their requests with pdata and assert on what runway makes of them.
func MapLogs(ld plog.Logs, sender string, weight float64) Batch {
	want := oracleMapLogs(ld, sender, weight)
	pb, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	js, _ := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	return sameAsOracle(want, Logs, pb, js, func(enc Encoding, body []byte) (Batch, error) {
		return Decode(Logs, enc, body, sender, weight)
	})
}

// MapMetrics is MapLogs for metrics.
func MapMetrics(md pmetric.Metrics, sender string) Batch {
	want := oracleMapMetrics(md, sender)
	pb, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	js, _ := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	return sameAsOracle(want, Metrics, pb, js, func(enc Encoding, body []byte) (Batch, error) {
		return Decode(Metrics, enc, body, sender, weight)
	})
}

func sameAsOracle(want Batch, sig Signal, pb, js []byte, decode func(Encoding, []byte) (Batch, error)) Batch {
	for enc, body := range map[Encoding][]byte{Protobuf: pb, JSON: js} {
		got, err := decode(enc, body)
		if err != nil {
			panic(fmt.Sprintf("%s %s: %v", sig, enc, err))
		}
		if !reflect.DeepEqual(got, want) {
			panic(fmt.Sprintf("%s %s: runway's reader maps\n%+v\npdata's\n%+v", sig, enc, got, want))
		}
	}
	return want
}

// oracleMapLogs picks the usage out of log records: Claude Code's api_request
// events and Codex's response.completed SSE events. sender names the
// machine when the resource has no host.name.
func oracleMapLogs(ld plog.Logs, sender string, weight float64) Batch {
	var b Batch
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		res := rl.Resource().Attributes()
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				attrs := lr.Attributes()
				name := oracleEventName(lr)
				var ev burn.Event
				var ok bool
				var reason string
				switch name {
				case "user_prompt", "claude_code.user_prompt", "codex.user_prompt":
					p := Prompt{Provider: burn.Claude, Session: clean(oracleStr(attrs, "session.id")), At: oracleWhen(attrs, lr)}
					if name == "codex.user_prompt" {
						p.Provider, p.Session = burn.Codex, clean(oracleStr(attrs, "conversation.id"))
					}
					if p.Session != "" && !p.At.IsZero() {
						b.Prompts = append(b.Prompts, p)
					}
					continue
				case "api_request", "claude_code.api_request":
					ev, ok, reason = oracleClaudeRequest(attrs, lr)
				case "codex.sse_event":
					if oracleStr(attrs, "event.kind") != "response.completed" {
						continue
					}
					ev, ok, reason = oracleCodexResponse(attrs, lr)
				default:
					continue
				}
				if reason != "" {
					b.reject(reason)
					continue
				}
				if !ok {
					continue // a copy without counts (Codex sends two)
				}
				ev.Host = oracleHostOf(attrs, res, sender)
				ev.Project = first(oracleStr(attrs, "project"), oracleStr(res, "project"))
				ev.Weighted = ev.Tokens.Weighted(weight)
				ev.Final = true
				b.Events = append(b.Events, ev)
			}
		}
	}
	return b
}

// oracleEventName is the record's event name wherever the exporter put it:
// Claude Code in the body and the event.name attribute, Codex in the
// attribute.
func oracleEventName(lr plog.LogRecord) string {
	if n := oracleStr(lr.Attributes(), "event.name"); n != "" {
		return n
	}
	if n := lr.EventName(); n != "" {
		return n
	}
	if lr.Body().Type() == pcommon.ValueTypeStr {
		return lr.Body().Str()
	}
	return ""
}

// oracleClaudeRequest reads an api_request event. Its counts split like a
// transcript's usage: input excludes cache reads and writes.
func oracleClaudeRequest(attrs pcommon.Map, lr plog.LogRecord) (burn.Event, bool, string) {
	session := clean(oracleStr(attrs, "session.id"))
	if session == "" {
		return burn.Event{}, false, "api_request without session.id (is OTEL_METRICS_INCLUDE_SESSION_ID=false?)"
	}
	var tok burn.Tokens
	for _, c := range []struct {
		name string
		to   *int64
	}{
		{"input_tokens", &tok.Input},
		{"output_tokens", &tok.Output},
		{"cache_read_tokens", &tok.CacheRead},
		{"cache_creation_tokens", &tok.CacheCreation},
	} {
		n, ok, bad := oracleCount(attrs, c.name)
		if bad {
			return burn.Event{}, false, "api_request " + c.name + " is not a token count"
		}
		if ok {
			*c.to = n
		}
	}
	at := oracleWhen(attrs, lr)
	if at.IsZero() {
		return burn.Event{}, false, "api_request without a time"
	}
	id := clean(oracleStr(attrs, "request_id"))
	if id == "" {
		// The sequence restarts in every process: only with the time is
		// it an identity.
		id = "seq" + oracleStr(attrs, "event.sequence") + "@" + at.Format(time.RFC3339Nano)
	}
	ev := burn.Event{
		Provider: burn.Claude,
		Session:  session,
		Model:    clean(oracleStr(attrs, "model")),
		At:       at,
		Key:      keyLog + session + "/" + id,
		Tokens:   tok,
	}
	if ms, ok, _ := oracleCount(attrs, "duration_ms"); ok && ms > 0 && ms < int64(time.Hour/time.Millisecond) {
		// The request's own span is the work this usage paid for, as a
		// transcript's line before the response is.
		ev.TurnStart = at.Add(-time.Duration(ms) * time.Millisecond)
	}
	return ev, tok != (burn.Tokens{}), ""
}

// oracleCodexResponse reads a response.completed SSE event. Codex counts cached
// tokens inside input: split them out as the rollout reader does.
func oracleCodexResponse(attrs pcommon.Map, lr plog.LogRecord) (burn.Event, bool, string) {
	in, okIn, badIn := oracleCount(attrs, "input_token_count")
	out, okOut, badOut := oracleCount(attrs, "output_token_count")
	cached, _, badCached := oracleCount(attrs, "cached_token_count")
	total, _, badTotal := oracleCount(attrs, "tool_token_count") // really total_tokens
	if badIn || badOut || badCached || badTotal {
		return burn.Event{}, false, "response.completed token count is not a number"
	}
	if !okIn && !okOut {
		return burn.Event{}, false, "" // the copy without counts
	}
	session := clean(oracleStr(attrs, "conversation.id"))
	if session == "" {
		return burn.Event{}, false, "response.completed without conversation.id"
	}
	at := oracleWhen(attrs, lr)
	if at.IsZero() {
		return burn.Event{}, false, "response.completed without a time"
	}
	cached = min(cached, in)
	tok := burn.Tokens{Input: in - cached, CacheRead: cached, Output: out}
	id := at.Format(time.RFC3339Nano) + "/" + strconv.FormatInt(total, 10) + "/" + strconv.FormatInt(in, 10) + "/" + strconv.FormatInt(out, 10)
	return burn.Event{
		Provider: burn.Codex,
		Session:  session,
		Model:    clean(oracleStr(attrs, "model")),
		At:       at,
		Key:      keyLog + session + "/" + id,
		Tokens:   tok,
	}, tok != (burn.Tokens{}), ""
}

// oracleMapMetrics picks the claude_code.token.usage data points. Codex's
// metrics carry no session, so they cannot be attributed and are left out.
func oracleMapMetrics(md pmetric.Metrics, sender string) Batch {
	var b Batch
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		res := rm.Resource().Attributes()
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if m.Name() != "claude_code.token.usage" || m.Type() != pmetric.MetricTypeSum {
					continue
				}
				sum := m.Sum()
				cumulative := sum.AggregationTemporality() == pmetric.AggregationTemporalityCumulative
				dps := sum.DataPoints()
				for d := 0; d < dps.Len(); d++ {
					dp := dps.At(d)
					attrs := dp.Attributes()
					p := Point{
						Session:    clean(oracleStr(attrs, "session.id")),
						Host:       oracleHostOf(attrs, res, sender),
						Model:      clean(oracleStr(attrs, "model")),
						Project:    first(oracleStr(attrs, "project"), oracleStr(res, "project")),
						Type:       oracleStr(attrs, "type"),
						Start:      oracleStamp(dp.StartTimestamp()),
						At:         oracleStamp(dp.Timestamp()),
						Cumulative: cumulative,
					}
					p.Series = oracleSeries(p.Host, attrs)
					switch dp.ValueType() {
					case pmetric.NumberDataPointValueTypeDouble:
						p.Value = dp.DoubleValue()
					case pmetric.NumberDataPointValueTypeInt:
						p.Value = float64(dp.IntValue())
					default:
						b.reject("token.usage data point without a value")
						continue
					}
					switch {
					case p.Session == "":
						b.reject("token.usage without session.id (is OTEL_METRICS_INCLUDE_SESSION_ID=false?)")
					case p.At.IsZero():
						b.reject("token.usage data point without a time")
					case math.IsNaN(p.Value) || p.Value < 0 || p.Value > burn.MaxResponseTokens*1000,
						!cumulative && p.Value > burn.MaxResponseTokens:
						// A delta point is what one export interval used: the
						// bound of a response's count, as for log events (a
						// cumulative one is a session's running sum).
						b.reject("token.usage value out of range")
					case tokenField(&burn.Tokens{}, p.Type) == nil:
						// a type this version does not know: not a count of ours
					default:
						b.Points = append(b.Points, p)
					}
				}
			}
		}
	}
	return b
}

// oracleSeries is a short identity of a point's time series.
func oracleSeries(host string, attrs pcommon.Map) string {
	keys := make([]string, 0, attrs.Len())
	for k, v := range attrs.All() {
		keys = append(keys, k+"="+v.AsString())
	}
	slices.Sort(keys)
	h := fnv.New64a()
	h.Write([]byte(host))
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// oracleStr is a string attribute, "" when absent; other types as their text.
func oracleStr(m pcommon.Map, key string) string {
	v, ok := m.Get(key)
	if !ok {
		return ""
	}
	if v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	if v.Type() == pcommon.ValueTypeInt || v.Type() == pcommon.ValueTypeDouble {
		return v.AsString()
	}
	return ""
}

// oracleCount reads a token count sent as an int, a double or a decimal string
// (Codex sends some counts as strings). bad: present but not a plausible
// count.
func oracleCount(m pcommon.Map, key string) (n int64, ok, bad bool) {
	v, found := m.Get(key)
	if !found {
		return 0, false, false
	}
	var f float64
	switch v.Type() {
	case pcommon.ValueTypeInt:
		f = float64(v.Int())
	case pcommon.ValueTypeDouble:
		f = v.Double()
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		if s == "" {
			return 0, false, false
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, true
		}
		f = x
	case pcommon.ValueTypeEmpty:
		return 0, false, false
	default:
		return 0, false, true
	}
	if math.IsNaN(f) || f < 0 || f > burn.MaxResponseTokens {
		return 0, false, true
	}
	return int64(f), true, false
}

// oracleWhen is the record's time: event.timestamp (Codex leaves the record's
// own time at 0), else the record's time, else when the SDK observed it.
func oracleWhen(attrs pcommon.Map, lr plog.LogRecord) time.Time {
	if s := oracleStr(attrs, "event.timestamp"); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.Year() > 2000 && t.Year() < 3000 {
			return t.UTC()
		}
	}
	if t := oracleStamp(lr.Timestamp()); !t.IsZero() {
		return t
	}
	return oracleStamp(lr.ObservedTimestamp())
}

// oracleStamp is an OTLP timestamp as a time, zero for 0 and for nonsense.
func oracleStamp(ts pcommon.Timestamp) time.Time {
	if ts == 0 || ts > math.MaxInt64 {
		return time.Time{}
	}
	t := time.Unix(0, int64(ts)).UTC()
	if t.Year() < 2000 {
		return time.Time{}
	}
	return t
}

func oracleHostOf(attrs, res pcommon.Map, sender string) string {
	return first(oracleStr(attrs, "host.name"), oracleStr(res, "host.name"), sender)
}
