package otlp

// The OTLP messages an export request may hold, field by field, as
// opentelemetry-proto defines them: the protobuf and JSON readers walk
// these tables, so a body is well-formed by the same rules in both
// encodings, and only the fields runway maps are kept (see sink).

// kind is how a field is encoded: its protobuf wire type and its OTLP/JSON
// form.
type kind uint8

const (
	kString        kind = iota // LEN; a JSON string (null reads as "")
	kBytes                     // LEN; base64 in JSON
	kID                        // LEN of 0 or field.size bytes; hex in JSON
	kMsg                       // LEN; a JSON object
	kStrings                   // repeated string
	kBool                      // varint; true/false
	kEnum                      // varint; a JSON number or the value's name
	kUint32                    // varint; a JSON number or decimal string
	kInt32                     // varint
	kSint32                    // zigzag varint
	kInt64                     // varint
	kFixed64                   // I64, unsigned (times, counts)
	kSfixed64                  // I64, signed
	kDouble                    // I64
	kFixed32                   // I32
	kPackedFixed64             // repeated fixed64: packed (LEN) or not (I64)
	kPackedDouble              // repeated double, likewise
	kPackedVarint              // repeated uint64: packed (LEN) or not (varint)
)

type field struct {
	num       int32
	name, alt string // the JSON names: lowerCamelCase and the proto name
	kind      kind
	msg       *message // kMsg
	repeated  bool     // kMsg: a JSON array
	size      int      // kID
	enum      map[string]int32
}

type message struct {
	name   string
	fields []field
	// counted messages make up attribute values; their nesting is
	// bounded by recursionLimit.
	counted bool
}

// enter is the nesting depth inside a message of type m entered at depth:
// counted messages nest one deeper, up to recursionLimit; any other starts
// the count again (attribute values are the only recursion).
func (m *message) enter(depth int) (int, error) {
	if !m.counted {
		return 0, nil
	}
	if depth >= recursionLimit {
		return 0, errDepth
	}
	return depth + 1, nil
}

func (m *message) field(num int32) *field {
	for i := range m.fields {
		if m.fields[i].num == num {
			return &m.fields[i]
		}
	}
	return nil
}

func (m *message) jsonField(name []byte) *field {
	for i := range m.fields {
		f := &m.fields[i]
		if string(name) == f.name || (f.alt != "" && string(name) == f.alt) {
			return f
		}
	}
	return nil
}

// wire is the field's protobuf wire type (the packed kinds also take
// their element's).
func (k kind) wire() int {
	switch k {
	case kString, kBytes, kID, kMsg, kStrings:
		return wireLen
	case kFixed64, kSfixed64, kDouble:
		return wireI64
	case kFixed32:
		return wireI32
	case kPackedFixed64, kPackedDouble:
		return wireI64
	}
	return wireVarint
}

var (
	temporalities = map[string]int32{
		"AGGREGATION_TEMPORALITY_UNSPECIFIED": 0,
		"AGGREGATION_TEMPORALITY_DELTA":       1,
		"AGGREGATION_TEMPORALITY_CUMULATIVE":  2,
	}
	severities = func() map[string]int32 {
		m := map[string]int32{"SEVERITY_NUMBER_UNSPECIFIED": 0}
		for i, level := range []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"} {
			for j, suffix := range []string{"", "2", "3", "4"} {
				m["SEVERITY_NUMBER_"+level+suffix] = int32(4*i + j + 1)
			}
		}
		// The reference decoder's table spells the first one with a
		// trailing space; read what it reads too.
		m["SEVERITY_NUMBER_TRACE "] = 1
		return m
	}()
	spanKinds = map[string]int32{
		"SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2,
		"SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
	}
	statusCodes = map[string]int32{"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
)

// Field numbers of the fields runway keeps; the sinks switch on them.
const (
	fAnyString   = 1
	fAnyBool     = 2
	fAnyInt      = 3
	fAnyDouble   = 4
	fAnyArray    = 5
	fAnyKvlist   = 6
	fAnyBytes    = 7
	fAnyStrindex = 8

	fLogTime      = 1
	fLogObserved  = 11
	fLogBody      = 5
	fLogAttrs     = 6
	fLogEventName = 12

	fMetricName      = 1
	fMetricGauge     = 5
	fMetricSum       = 7
	fMetricHistogram = 9
	fMetricExpHist   = 10
	fMetricSummary   = 11

	fPointAttrs  = 7
	fPointStart  = 2
	fPointTime   = 3
	fPointDouble = 4
	fPointInt    = 6
)

var (
	anyValueMsg     = &message{name: "AnyValue", counted: true}
	arrayValueMsg   = &message{name: "ArrayValue", counted: true}
	keyValueListMsg = &message{name: "KeyValueList", counted: true}
	keyValueMsg     = &message{name: "KeyValue", counted: true}

	entityRefMsg = &message{name: "EntityRef", fields: []field{
		{num: 1, name: "schemaUrl", alt: "schema_url", kind: kString},
		{num: 2, name: "type", kind: kString},
		{num: 3, name: "idKeys", alt: "id_keys", kind: kStrings},
		{num: 4, name: "descriptionKeys", alt: "description_keys", kind: kStrings},
	}}
	resourceMsg = &message{name: "Resource", fields: []field{
		attributes(1, "attributes", ""),
		{num: 2, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
		{num: 3, name: "entityRefs", alt: "entity_refs", kind: kMsg, msg: entityRefMsg, repeated: true},
	}}
	scopeMsg = &message{name: "InstrumentationScope", fields: []field{
		{num: 1, name: "name", kind: kString},
		{num: 2, name: "version", kind: kString},
		attributes(3, "attributes", ""),
		{num: 4, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
	}}

	logRecordMsg = &message{name: "LogRecord", fields: []field{
		{num: fLogTime, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: fLogObserved, name: "observedTimeUnixNano", alt: "observed_time_unix_nano", kind: kFixed64},
		{num: 2, name: "severityNumber", alt: "severity_number", kind: kEnum, enum: severities},
		{num: 3, name: "severityText", alt: "severity_text", kind: kString},
		{num: fLogBody, name: "body", kind: kMsg, msg: anyValueMsg},
		attributes(fLogAttrs, "attributes", ""),
		{num: 7, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
		{num: 8, name: "flags", kind: kFixed32},
		{num: 9, name: "traceId", alt: "trace_id", kind: kID, size: 16},
		{num: 10, name: "spanId", alt: "span_id", kind: kID, size: 8},
		{num: fLogEventName, name: "eventName", alt: "event_name", kind: kString},
	}}
	scopeLogsMsg = &message{name: "ScopeLogs", fields: []field{
		{num: 1, name: "scope", kind: kMsg, msg: scopeMsg},
		{num: 2, name: "logRecords", alt: "log_records", kind: kMsg, msg: logRecordMsg, repeated: true},
		{num: 3, name: "schemaUrl", alt: "schema_url", kind: kString},
	}}
	resourceLogsMsg = &message{name: "ResourceLogs", fields: resourceFields("scopeLogs", "scope_logs", scopeLogsMsg, "deprecatedScopeLogs", "deprecated_scope_logs")}
	logsMsg         = &message{name: "ExportLogsServiceRequest", fields: []field{
		{num: 1, name: "resourceLogs", alt: "resource_logs", kind: kMsg, msg: resourceLogsMsg, repeated: true},
	}}

	exemplarMsg = &message{name: "Exemplar", fields: []field{
		attributes(7, "filteredAttributes", "filtered_attributes"),
		{num: 2, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: 3, name: "asDouble", alt: "as_double", kind: kDouble},
		{num: 6, name: "asInt", alt: "as_int", kind: kSfixed64},
		{num: 5, name: "traceId", alt: "trace_id", kind: kID, size: 16},
		{num: 4, name: "spanId", alt: "span_id", kind: kID, size: 8},
	}}
	numberPointMsg = &message{name: "NumberDataPoint", fields: []field{
		attributes(fPointAttrs, "attributes", ""),
		{num: fPointStart, name: "startTimeUnixNano", alt: "start_time_unix_nano", kind: kFixed64},
		{num: fPointTime, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: fPointDouble, name: "asDouble", alt: "as_double", kind: kDouble},
		{num: fPointInt, name: "asInt", alt: "as_int", kind: kSfixed64},
		{num: 5, name: "exemplars", kind: kMsg, msg: exemplarMsg, repeated: true},
		{num: 8, name: "flags", kind: kUint32},
	}}
	temporality = field{num: 2, name: "aggregationTemporality", alt: "aggregation_temporality", kind: kEnum, enum: temporalities}
	gaugeMsg    = &message{name: "Gauge", fields: []field{
		{num: 1, name: "dataPoints", alt: "data_points", kind: kMsg, msg: numberPointMsg, repeated: true},
	}}
	sumMsg = &message{name: "Sum", fields: []field{
		{num: 1, name: "dataPoints", alt: "data_points", kind: kMsg, msg: numberPointMsg, repeated: true},
		temporality,
		{num: 3, name: "isMonotonic", alt: "is_monotonic", kind: kBool},
	}}
	histogramPointMsg = &message{name: "HistogramDataPoint", fields: []field{
		attributes(9, "attributes", ""),
		{num: 2, name: "startTimeUnixNano", alt: "start_time_unix_nano", kind: kFixed64},
		{num: 3, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: 4, name: "count", kind: kFixed64},
		{num: 5, name: "sum", kind: kDouble},
		{num: 6, name: "bucketCounts", alt: "bucket_counts", kind: kPackedFixed64},
		{num: 7, name: "explicitBounds", alt: "explicit_bounds", kind: kPackedDouble},
		{num: 8, name: "exemplars", kind: kMsg, msg: exemplarMsg, repeated: true},
		{num: 10, name: "flags", kind: kUint32},
		{num: 11, name: "min", kind: kDouble},
		{num: 12, name: "max", kind: kDouble},
	}}
	histogramMsg = &message{name: "Histogram", fields: []field{
		{num: 1, name: "dataPoints", alt: "data_points", kind: kMsg, msg: histogramPointMsg, repeated: true},
		temporality,
	}}
	bucketsMsg = &message{name: "Buckets", fields: []field{
		{num: 1, name: "offset", kind: kSint32},
		{num: 2, name: "bucketCounts", alt: "bucket_counts", kind: kPackedVarint},
	}}
	expPointMsg = &message{name: "ExponentialHistogramDataPoint", fields: []field{
		attributes(1, "attributes", ""),
		{num: 2, name: "startTimeUnixNano", alt: "start_time_unix_nano", kind: kFixed64},
		{num: 3, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: 4, name: "count", kind: kFixed64},
		{num: 5, name: "sum", kind: kDouble},
		{num: 6, name: "scale", kind: kSint32},
		{num: 7, name: "zeroCount", alt: "zero_count", kind: kFixed64},
		{num: 8, name: "positive", kind: kMsg, msg: bucketsMsg},
		{num: 9, name: "negative", kind: kMsg, msg: bucketsMsg},
		{num: 10, name: "flags", kind: kUint32},
		{num: 11, name: "exemplars", kind: kMsg, msg: exemplarMsg, repeated: true},
		{num: 12, name: "min", kind: kDouble},
		{num: 13, name: "max", kind: kDouble},
		{num: 14, name: "zeroThreshold", alt: "zero_threshold", kind: kDouble},
	}}
	expHistogramMsg = &message{name: "ExponentialHistogram", fields: []field{
		{num: 1, name: "dataPoints", alt: "data_points", kind: kMsg, msg: expPointMsg, repeated: true},
		temporality,
	}}
	quantileMsg = &message{name: "ValueAtQuantile", fields: []field{
		{num: 1, name: "quantile", kind: kDouble},
		{num: 2, name: "value", kind: kDouble},
	}}
	summaryPointMsg = &message{name: "SummaryDataPoint", fields: []field{
		attributes(7, "attributes", ""),
		{num: 2, name: "startTimeUnixNano", alt: "start_time_unix_nano", kind: kFixed64},
		{num: 3, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: 4, name: "count", kind: kFixed64},
		{num: 5, name: "sum", kind: kDouble},
		{num: 6, name: "quantileValues", alt: "quantile_values", kind: kMsg, msg: quantileMsg, repeated: true},
		{num: 8, name: "flags", kind: kUint32},
	}}
	summaryMsg = &message{name: "Summary", fields: []field{
		{num: 1, name: "dataPoints", alt: "data_points", kind: kMsg, msg: summaryPointMsg, repeated: true},
	}}
	metricMsg = &message{name: "Metric", fields: []field{
		{num: fMetricName, name: "name", kind: kString},
		{num: 2, name: "description", kind: kString},
		{num: 3, name: "unit", kind: kString},
		{num: fMetricGauge, name: "gauge", kind: kMsg, msg: gaugeMsg},
		{num: fMetricSum, name: "sum", kind: kMsg, msg: sumMsg},
		{num: fMetricHistogram, name: "histogram", kind: kMsg, msg: histogramMsg},
		{num: fMetricExpHist, name: "exponentialHistogram", alt: "exponential_histogram", kind: kMsg, msg: expHistogramMsg},
		{num: fMetricSummary, name: "summary", kind: kMsg, msg: summaryMsg},
		attributes(12, "metadata", ""),
	}}
	scopeMetricsMsg = &message{name: "ScopeMetrics", fields: []field{
		{num: 1, name: "scope", kind: kMsg, msg: scopeMsg},
		{num: 2, name: "metrics", kind: kMsg, msg: metricMsg, repeated: true},
		{num: 3, name: "schemaUrl", alt: "schema_url", kind: kString},
	}}
	resourceMetricsMsg = &message{name: "ResourceMetrics", fields: resourceFields("scopeMetrics", "scope_metrics", scopeMetricsMsg, "deprecatedScopeMetrics", "deprecated_scope_metrics")}
	metricsMsg         = &message{name: "ExportMetricsServiceRequest", fields: []field{
		{num: 1, name: "resourceMetrics", alt: "resource_metrics", kind: kMsg, msg: resourceMetricsMsg, repeated: true},
	}}

	eventMsg = &message{name: "Span.Event", fields: []field{
		{num: 1, name: "timeUnixNano", alt: "time_unix_nano", kind: kFixed64},
		{num: 2, name: "name", kind: kString},
		attributes(3, "attributes", ""),
		{num: 4, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
	}}
	linkMsg = &message{name: "Span.Link", fields: []field{
		{num: 1, name: "traceId", alt: "trace_id", kind: kID, size: 16},
		{num: 2, name: "spanId", alt: "span_id", kind: kID, size: 8},
		{num: 3, name: "traceState", alt: "trace_state", kind: kString},
		attributes(4, "attributes", ""),
		{num: 5, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
		{num: 6, name: "flags", kind: kFixed32},
	}}
	statusMsg = &message{name: "Status", fields: []field{
		{num: 2, name: "message", kind: kString},
		{num: 3, name: "code", kind: kEnum, enum: statusCodes},
	}}
	spanMsg = &message{name: "Span", fields: []field{
		{num: 1, name: "traceId", alt: "trace_id", kind: kID, size: 16},
		{num: 2, name: "spanId", alt: "span_id", kind: kID, size: 8},
		{num: 3, name: "traceState", alt: "trace_state", kind: kString},
		{num: 4, name: "parentSpanId", alt: "parent_span_id", kind: kID, size: 8},
		{num: 16, name: "flags", kind: kFixed32},
		{num: 5, name: "name", kind: kString},
		{num: 6, name: "kind", kind: kEnum, enum: spanKinds},
		{num: 7, name: "startTimeUnixNano", alt: "start_time_unix_nano", kind: kFixed64},
		{num: 8, name: "endTimeUnixNano", alt: "end_time_unix_nano", kind: kFixed64},
		attributes(9, "attributes", ""),
		{num: 10, name: "droppedAttributesCount", alt: "dropped_attributes_count", kind: kUint32},
		{num: 11, name: "events", kind: kMsg, msg: eventMsg, repeated: true},
		{num: 12, name: "droppedEventsCount", alt: "dropped_events_count", kind: kUint32},
		{num: 13, name: "links", kind: kMsg, msg: linkMsg, repeated: true},
		{num: 14, name: "droppedLinksCount", alt: "dropped_links_count", kind: kUint32},
		{num: 15, name: "status", kind: kMsg, msg: statusMsg},
	}}
	scopeSpansMsg = &message{name: "ScopeSpans", fields: []field{
		{num: 1, name: "scope", kind: kMsg, msg: scopeMsg},
		{num: 2, name: "spans", kind: kMsg, msg: spanMsg, repeated: true},
		{num: 3, name: "schemaUrl", alt: "schema_url", kind: kString},
	}}
	resourceSpansMsg = &message{name: "ResourceSpans", fields: resourceFields("scopeSpans", "scope_spans", scopeSpansMsg, "deprecatedScopeSpans", "deprecated_scope_spans")}
	tracesMsg        = &message{name: "ExportTraceServiceRequest", fields: []field{
		{num: 1, name: "resourceSpans", alt: "resource_spans", kind: kMsg, msg: resourceSpansMsg, repeated: true},
	}}
)

// The attribute value messages refer to each other; tie them here.
func init() {
	anyValueMsg.fields = []field{
		{num: fAnyString, name: "stringValue", alt: "string_value", kind: kString},
		{num: fAnyBool, name: "boolValue", alt: "bool_value", kind: kBool},
		{num: fAnyInt, name: "intValue", alt: "int_value", kind: kInt64},
		{num: fAnyDouble, name: "doubleValue", alt: "double_value", kind: kDouble},
		{num: fAnyArray, name: "arrayValue", alt: "array_value", kind: kMsg, msg: arrayValueMsg},
		{num: fAnyKvlist, name: "kvlistValue", alt: "kvlist_value", kind: kMsg, msg: keyValueListMsg},
		{num: fAnyBytes, name: "bytesValue", alt: "bytes_value", kind: kBytes},
		{num: fAnyStrindex, name: "stringValueStrindex", alt: "string_value_strindex", kind: kInt32},
	}
	arrayValueMsg.fields = []field{{num: 1, name: "values", kind: kMsg, msg: anyValueMsg, repeated: true}}
	keyValueListMsg.fields = []field{attributes(1, "values", "")}
	keyValueMsg.fields = []field{
		{num: 1, name: "key", kind: kString},
		{num: 2, name: "value", kind: kMsg, msg: anyValueMsg},
		{num: 3, name: "keyStrindex", alt: "key_strindex", kind: kInt32},
	}
}

func attributes(num int32, name, alt string) field {
	return field{num: num, name: name, alt: alt, kind: kMsg, msg: keyValueMsg, repeated: true}
}

// resourceFields are a ResourceLogs/Metrics/Spans: the resource, its
// scopes, and the scopes under their pre-1.0 field number (1000), read
// when the new one is empty.
func resourceFields(scopes, scopesAlt string, scope *message, old, oldAlt string) []field {
	return []field{
		{num: 1, name: "resource", kind: kMsg, msg: resourceMsg},
		{num: 2, name: scopes, alt: scopesAlt, kind: kMsg, msg: scope, repeated: true},
		{num: 3, name: "schemaUrl", alt: "schema_url", kind: kString},
		{num: 1000, name: old, alt: oldAlt, kind: kMsg, msg: scope, repeated: true},
	}
}
