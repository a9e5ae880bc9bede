package otlp

import (
	"fmt"
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
// runway reads the OTLP messages itself (schema.go): the collector's data
// packages, json-iterator and the protobuf runtime cost every runway
// command, the statusline included, 1.7–2.4 ms of package init, 40 page
// faults and 1.3 MB of binary per start.
func Decode(sig Signal, enc Encoding, body []byte, sender string, weight float64) (Batch, error) {
	switch sig {
	case Logs:
		var logs logsData
		if err := read(enc, body, logsMsg, &logs); err != nil {
			return Batch{}, err
		}
		if enc != JSON {
			for i := range logs.resources {
				logs.resources[i].old = nil
			}
		}
		return mapLogs(&logs, sender, weight), nil
	case Metrics:
		var metrics metricsData
		if err := read(enc, body, metricsMsg, &metrics); err != nil {
			return Batch{}, err
		}
		if enc != JSON {
			for i := range metrics.resources {
				metrics.resources[i].old = nil
			}
		}
		return mapMetrics(&metrics, sender), nil
	case Traces:
		return Batch{}, read(enc, body, tracesMsg, nil)
	}
	return Batch{}, fmt.Errorf("unknown signal %q", sig)
}

// read reads body, an export request of type m, into s (nil: only checks
// it).
func read(enc Encoding, body []byte, m *message, s sink) error {
	var err error
	if enc == JSON {
		err = readJSON(body, m, s)
	} else {
		err = readProto(body, m, s, 0)
	}
	if err != nil {
		return fmt.Errorf("not an OTLP %s body: %w", enc, err)
	}
	return nil
}
