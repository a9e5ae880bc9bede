package otlp

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
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
func Decode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
	switch sig {
	case Logs:
		req := plogotlp.NewExportRequest()
		if err := unmarshal(enc, body, req.UnmarshalProto, req.UnmarshalJSON); err != nil {
			return Batch{}, err
		}
		return MapLogs(req.Logs(), sender, weight), nil
	case Metrics:
		req := pmetricotlp.NewExportRequest()
		if err := unmarshal(enc, body, req.UnmarshalProto, req.UnmarshalJSON); err != nil {
			return Batch{}, err
		}
		return MapMetrics(req.Metrics(), sender), nil
	case Traces:
		req := ptraceotlp.NewExportRequest()
		return Batch{}, unmarshal(enc, body, req.UnmarshalProto, req.UnmarshalJSON)
	}
	return Batch{}, fmt.Errorf("unknown signal %q", sig)
}

func unmarshal(enc Encoding, body []byte, proto, json func([]byte) error) error {
	var err error
	if enc == JSON {
		err = json(body)
	} else {
		err = proto(body)
	}
	if err != nil {
		return fmt.Errorf("not an OTLP %s body: %v", enc, err)
	}
	return nil
}
