package otlp

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// runway writes the export responses itself (pdata's *otlp packages would
// link gRPC into every command); pdata's own decoders, which the OTLP
// exporters use, read them back field for field, in both encodings.
func TestExportResponseReadsAsPdatas(t *testing.T) {
	for _, enc := range []Encoding{Protobuf, JSON} {
		unmarshal := func(b []byte, proto, json func([]byte) error) {
			t.Helper()
			f := proto
			if enc == JSON {
				f = json
			}
			if err := f(b); err != nil {
				t.Fatalf("%s: %v: %q", enc, err, b)
			}
		}
		logs := plogotlp.NewExportResponse()
		unmarshal(exportResponse(Logs, enc, 3, `bad "x" <y>`), logs.UnmarshalProto, logs.UnmarshalJSON)
		if p := logs.PartialSuccess(); p.RejectedLogRecords() != 3 || p.ErrorMessage() != `bad "x" <y>` {
			t.Errorf("%s logs: %d %q", enc, p.RejectedLogRecords(), p.ErrorMessage())
		}
		metrics := pmetricotlp.NewExportResponse()
		unmarshal(exportResponse(Metrics, enc, 2, "e"), metrics.UnmarshalProto, metrics.UnmarshalJSON)
		if p := metrics.PartialSuccess(); p.RejectedDataPoints() != 2 || p.ErrorMessage() != "e" {
			t.Errorf("%s metrics: %d %q", enc, p.RejectedDataPoints(), p.ErrorMessage())
		}
		traces := ptraceotlp.NewExportResponse()
		unmarshal(exportResponse(Traces, enc, 0, "ignored"), traces.UnmarshalProto, traces.UnmarshalJSON)
		if p := traces.PartialSuccess(); p.RejectedSpans() != 0 || p.ErrorMessage() != "" {
			t.Errorf("%s traces: %d %q", enc, p.RejectedSpans(), p.ErrorMessage())
		}
	}
	if got := string(exportResponse(Logs, Protobuf, 0, "")); got != "\x0a\x00" {
		t.Errorf("an empty response is %q, want pdata's 0a00", got)
	}
}
