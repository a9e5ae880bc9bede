package otlp

// pdata, the collector's data model, is the oracle: a request pdata
// decodes, turned into the structs runway reads (fromPdata), goes through
// the same mapping as runway's own reading of it.

import (
	"fmt"
	"math"
	"reflect"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// oracleDecode is Decode over pdata's unmarshalers.
func oracleDecode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
	switch sig {
	case Logs:
		var u plog.Unmarshaler = &plog.ProtoUnmarshaler{}
		if enc == JSON {
			u = &plog.JSONUnmarshaler{}
		}
		ld, err := u.UnmarshalLogs(body)
		if err != nil {
			return Batch{}, err
		}
		return mapLogs(logsFromPdata(ld), sender, weight), nil
	case Metrics:
		var u pmetric.Unmarshaler = &pmetric.ProtoUnmarshaler{}
		if enc == JSON {
			u = &pmetric.JSONUnmarshaler{}
		}
		md, err := u.UnmarshalMetrics(body)
		if err != nil {
			return Batch{}, err
		}
		return mapMetrics(metricsFromPdata(md), sender), nil
	case Traces:
		var u ptrace.Unmarshaler = &ptrace.ProtoUnmarshaler{}
		if enc == JSON {
			u = &ptrace.JSONUnmarshaler{}
		}
		_, err := u.UnmarshalTraces(body)
		return Batch{}, err
	}
	return Batch{}, fmt.Errorf("unknown signal %q", sig)
}

// grown appends a zero element to *s and returns it.
func grown[S ~[]T, T any](s *S) *T {
	*s = append(*s, *new(T))
	return &(*s)[len(*s)-1]
}

func logsFromPdata(ld plog.Logs) *logsRequest {
	var req logsRequest
	for _, rl := range ld.ResourceLogs().All() {
		r := grown(&req.Resources)
		r.Resource.Attrs = attrsFromPdata(rl.Resource().Attributes())
		for _, sl := range rl.ScopeLogs().All() {
			s := grown(&r.Scopes)
			for _, lr := range sl.LogRecords().All() {
				s.Records = append(s.Records, logRecord{
					Time: nanos(lr.Timestamp()), Observed: nanos(lr.ObservedTimestamp()),
					Body: valueFromPdata(lr.Body()), Attrs: attrsFromPdata(lr.Attributes()), EventName: lr.EventName(),
				})
			}
		}
	}
	return &req
}

func metricsFromPdata(md pmetric.Metrics) *metricsRequest {
	var req metricsRequest
	for _, rm := range md.ResourceMetrics().All() {
		r := grown(&req.Resources)
		r.Resource.Attrs = attrsFromPdata(rm.Resource().Attributes())
		for _, sm := range rm.ScopeMetrics().All() {
			s := grown(&r.Scopes)
			for _, m := range sm.Metrics().All() {
				s.Metrics = append(s.Metrics, metric{Name: m.Name()})
				if m.Type() != pmetric.MetricTypeSum {
					continue
				}
				sum := &sum{Temporality: temporality(m.Sum().AggregationTemporality())}
				s.Metrics[len(s.Metrics)-1].Sum = sum
				for _, dp := range m.Sum().DataPoints().All() {
					p := numberPoint{Attrs: attrsFromPdata(dp.Attributes()), Start: nanos(dp.StartTimestamp()), At: nanos(dp.Timestamp())}
					switch dp.ValueType() {
					case pmetric.NumberDataPointValueTypeInt:
						p.AsInt = integer{dp.IntValue(), true}
					case pmetric.NumberDataPointValueTypeDouble:
						p.AsDouble = double{dp.DoubleValue(), true}
					}
					sum.Points = append(sum.Points, p)
				}
			}
		}
	}
	return &req
}

// attrsFromPdata keeps every entry, a key sent twice included, as pdata
// holds them.
func attrsFromPdata(m pcommon.Map) attrs {
	var a attrs
	for k, v := range m.All() {
		a = append(a, keyValue{k, valueFromPdata(v)})
	}
	return a
}

func valueFromPdata(v pcommon.Value) value {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return value{kind: valueStr, str: v.Str()}
	case pcommon.ValueTypeBool:
		if v.Bool() {
			return value{kind: valueBool, num: 1}
		}
		return value{kind: valueBool}
	case pcommon.ValueTypeInt:
		return value{kind: valueInt, num: uint64(v.Int())}
	case pcommon.ValueTypeDouble:
		return value{kind: valueDouble, num: math.Float64bits(v.Double())}
	case pcommon.ValueTypeBytes:
		return value{kind: valueBytes, str: string(v.Bytes().AsRaw())}
	case pcommon.ValueTypeSlice:
		l := &valueList{}
		for _, e := range v.Slice().All() {
			l.array = append(l.array, valueFromPdata(e))
		}
		return value{kind: valueArray, list: l}
	case pcommon.ValueTypeMap:
		return value{kind: valueMap, list: &valueList{kv: attrsFromPdata(v.Map())}}
	}
	return value{}
}

// MapLogs maps logs built with pdata, and checks that runway's reader of
// them, in both encodings, maps the same: the tests build their requests
// with pdata and assert on what runway makes of them.
func MapLogs(ld plog.Logs, sender string, weight float64) Batch {
	pb, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	js, _ := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	return sameAsOracle(mapLogs(logsFromPdata(ld), sender, weight), Logs, pb, js, sender, weight)
}

// MapMetrics is MapLogs for metrics.
func MapMetrics(md pmetric.Metrics, sender string) Batch {
	pb, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	js, _ := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	return sameAsOracle(mapMetrics(metricsFromPdata(md), sender), Metrics, pb, js, sender, weight)
}

func sameAsOracle(want Batch, sig Signal, pb, js []byte, sender string, weight float64) Batch {
	for enc, body := range map[Encoding][]byte{Protobuf: pb, JSON: js} {
		got, err := Decode(sig, enc, body, sender, weight)
		if err != nil {
			panic(fmt.Sprintf("%s %s: %v", sig, enc, err))
		}
		if !reflect.DeepEqual(got, want) {
			panic(fmt.Sprintf("%s %s: runway's reader maps\n%+v\npdata's\n%+v", sig, enc, got, want))
		}
	}
	return want
}
