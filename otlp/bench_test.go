package otlp

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// exportOf is a protobuf logs export of perSession api_requests for each
// of n sessions, the request ids starting at first.
func exportOf(tb testing.TB, n, perSession, first int, at time.Time) []byte {
	tb.Helper()
	ld := manySessions(n, perSession, at)
	if first > 0 {
		// New request ids: each round is new usage, not a retry.
		rls := ld.ResourceLogs()
		for i := 0; i < rls.Len(); i++ {
			lrs := rls.At(i).ScopeLogs().At(0).LogRecords()
			for j := 0; j < lrs.Len(); j++ {
				a := lrs.At(j).Attributes()
				id, _ := a.Get("request_id")
				a.PutStr("request_id", id.Str()+"-"+strconv.Itoa(first))
			}
		}
	}
	b, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkReceiver is what the receiver sustains: exports of 100
// api_request events (10 sessions), protobuf, through the HTTP handler
// into the store, each export new usage. The baseline in the same run is
// the protobuf decode alone (pdata), the least any OTLP receiver pays.
func BenchmarkReceiver(b *testing.B) {
	const perExport = 100
	now := t0.Add(time.Hour)
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = exportOf(b, 10, 10, i+1, now)
	}
	b.Run("decode-only", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalProto(bodies[i%len(bodies)]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*perExport)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("receiver", func(b *testing.B) {
		b.ReportAllocs()
		r := NewReceiver(NewStore(6*time.Hour, weight), weight)
		r.Now = func() time.Time { return now }
		h := r.Handle(Logs)
		for i := 0; b.Loop(); i++ {
			req := httptest.NewRequest(http.MethodPost, "/v1/logs", bytes.NewReader(bodies[i%len(bodies)]))
			req.Header.Set("Content-Type", "application/x-protobuf")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
		b.ReportMetric(float64(b.N*perExport)/b.Elapsed().Seconds(), "events/s")
	})
}

// BenchmarkDecode is Decode (read and map) of real-format exports, beside
// pdata's unmarshalers with the same mapping (oracleDecode) in the same
// run: 100 api_request events in protobuf and JSON, and Claude Code's
// token.usage metrics.
func BenchmarkDecode(b *testing.B) {
	logsPB := exportOf(b, 10, 10, 1, t0.Add(time.Hour))
	logsJSON, err := (&plog.JSONMarshaler{}).MarshalLogs(manySessions(10, 10, t0.Add(time.Hour)))
	if err != nil {
		b.Fatal(err)
	}
	metricsJSON := fixture(b, "claude_metrics.json")
	for _, c := range []struct {
		name string
		sig  Signal
		enc  Encoding
		body []byte
	}{
		{"logs-protobuf", Logs, Protobuf, logsPB},
		{"logs-json", Logs, JSON, logsJSON},
		{"metrics-protobuf", Metrics, Protobuf, asProto(b, Metrics, metricsJSON)},
		{"metrics-json", Metrics, JSON, metricsJSON},
	} {
		for _, d := range []struct {
			name   string
			decode func(Signal, Encoding, []byte, string, float64) (Batch, error)
		}{{"pdata", oracleDecode}, {"runway", Decode}} {
			b.Run(c.name+"/"+d.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.body)))
				for b.Loop() {
					if _, err := d.decode(c.sig, c.enc, c.body, "h", weight); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkThousandSessions holds 1,000 remote sessions, each with 100
// responses (about 17 minutes of one every 10 s), and reports the heap
// they take and the process's resident set.
func BenchmarkThousandSessions(b *testing.B) {
	if testing.Short() {
		b.Skip("fills 100,000 events")
	}
	now := t0.Add(time.Hour)
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s := NewStore(6*time.Hour, weight)
		for round := 0; round < 10; round++ {
			body := exportOf(b, 1000, 10, round+1, t0.Add(time.Duration(round)*100*time.Second))
			batch, err := Decode(Logs, Protobuf, body, "h", weight)
			if err != nil {
				b.Fatal(err)
			}
			s.Add(now, batch)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(s.Len()), "events")
		b.ReportMetric(float64(after.HeapInuse-min(before.HeapInuse, after.HeapInuse))/(1<<20), "heap-MiB")
		b.ReportMetric(rssMiB(), "rss-MiB")
		runtime.KeepAlive(s)
	}
}

// rssMiB is the process's resident set on Linux (VmRSS), 0 elsewhere.
func rssMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
