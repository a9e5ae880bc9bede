package otlp

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
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

// Decode reads one export request and maps what runway counts. A body
// that is not the signal's export request in that encoding is an error
// that says why; traces are read (a sender is told when its body is
// broken) and dropped. weight is the cache-read weight.
//
// An export request (ExportLogsServiceRequest …) has the wire and JSON form
// of the signal's data message (LogsData …): one repeated field 1,
// resource_logs / resourceLogs. So pdata's plain unmarshalers read it, and
// the *otlp packages, which link gRPC into every runway command, are not
// needed.
func Decode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
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
			return Batch{}, notOTLP(enc, err)
		}
		return MapLogs(logs, sender, weight), nil
	case Metrics:
		var metrics pmetric.Metrics
		if enc == JSON {
			metrics, err = (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(body)
		} else {
			metrics, err = (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(body)
		}
		if err != nil {
			return Batch{}, notOTLP(enc, err)
		}
		return MapMetrics(metrics, sender), nil
	case Traces:
		if enc == JSON {
			_, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
		} else {
			_, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
		}
		if err != nil {
			return Batch{}, notOTLP(enc, err)
		}
		return Batch{}, nil
	}
	return Batch{}, fmt.Errorf("unknown signal %q", sig)
}

func notOTLP(enc Encoding, err error) error {
	return fmt.Errorf("not an OTLP %s body: %v", enc, err)
}
