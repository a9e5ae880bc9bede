package otlp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/agentrunway/runway/metrics"
)

// receiver is a Receiver behind a real HTTP server, as runway serve
// mounts it.
func receiver(t *testing.T, token string) (*Receiver, *httptest.Server, *int) {
	t.Helper()
	r := NewReceiver(NewStore(6*time.Hour, weight), weight)
	r.Now = func() time.Time { return t0.Add(5 * time.Minute) }
	changes := new(int)
	r.OnChange = func() { *changes++ }
	mux := http.NewServeMux()
	for _, sig := range []Signal{Logs, Metrics, Traces} {
		mux.Handle("/v1/"+string(sig), r.Authorize(token, string(sig), r.Handle(sig)))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return r, srv, changes
}

func post(t *testing.T, url, contentType, encoding string, body []byte, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// exposed is the receiver's counters as Prometheus reads them from
// /metrics.
func exposed(t *testing.T, r *Receiver) map[string]*dto.MetricFamily {
	t.Helper()
	text := metrics.AppendText(nil, r.Metrics())
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return fams
}

// exposedCount is the exposed counter name{labels}; labels are name,
// value pairs. -1 when the series is not there.
func exposedCount(t *testing.T, r *Receiver, name string, labels ...string) float64 {
	t.Helper()
	f := exposed(t, r)[name]
	if f == nil {
		return -1
	}
	if f.GetType() != dto.MetricType_COUNTER {
		t.Errorf("%s is a %v", name, f.GetType())
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for _, l := range m.Label {
			if !slices.Contains(pairs(labels), [2]string{l.GetName(), l.GetValue()}) {
				continue next
			}
		}
		return m.GetCounter().GetValue()
	}
	return -1
}

func pairs(kv []string) [][2]string {
	var out [][2]string
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, [2]string{kv[i], kv[i+1]})
	}
	return out
}

func counter(t *testing.T, r *Receiver, signal, outcome string) float64 {
	t.Helper()
	return max(exposedCount(t, r, "runway_otlp_requests_total", "signal", signal, "outcome", outcome), 0)
}

func TestReceiverTakesProtobufJSONAndGzip(t *testing.T) {
	r, srv, changes := receiver(t, "")
	js := fixture(t, "claude_logs.json")
	pb := asProto(t, Logs, js)

	resp, body := post(t, srv.URL+"/v1/logs", "application/x-protobuf", "gzip", gz(pb))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("protobuf+gzip: %d %s", resp.StatusCode, body)
	}
	ok := plogotlp.NewExportResponse()
	if err := ok.UnmarshalProto(body); err != nil {
		t.Errorf("the answer is not an ExportLogsServiceResponse: %v", err)
	}
	// The same export as JSON is a retry of the same responses.
	resp, body = post(t, srv.URL+"/v1/logs", "application/json", "", js)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("json: %d %s", resp.StatusCode, body)
	}
	resp, _ = post(t, srv.URL+"/v1/metrics", "application/json", "gzip", gz(fixture(t, "claude_metrics.json")))
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d", resp.StatusCode)
	}
	resp, _ = post(t, srv.URL+"/v1/traces", "application/x-protobuf", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("traces are accepted and dropped: %d", resp.StatusCode)
	}
	if r.Store.Len() != 2+4 || *changes != 2 {
		t.Errorf("%d events after %d changes, want 2 responses once and 4 metric points, 2 changes", r.Store.Len(), *changes)
	}
	if got := counter(t, r, "logs", "ok"); got != 2 {
		t.Errorf("ok logs requests counted %v", got)
	}
	if got := exposedCount(t, r, "runway_otlp_usage_records_total", "outcome", "duplicate"); got != 2 {
		t.Errorf("duplicates counted %v", got)
	}
}

func TestMalformedBodiesAre400WithTheReasonAndCounted(t *testing.T) {
	r, srv, _ := receiver(t, "")
	before := r.Store.Len()
	cases := []struct {
		name, ct, enc string
		body          []byte
		status        int
		reason        string
		outcome       string
	}{
		{"garbage protobuf", "application/x-protobuf", "", []byte{0xff, 0xff, 0xff, 0x01, 0x02}, 400, "not an OTLP protobuf body", outcomeMalformed},
		{"garbage json", "application/json", "", []byte(`{"resourceLogs":[{"resource":`), 400, "not an OTLP json body", outcomeMalformed},
		{"not gzip", "application/x-protobuf", "gzip", []byte("plain"), 400, "not gzip", outcomeMalformed},
		{"truncated gzip", "application/x-protobuf", "gzip", gz(asProto(t, Logs, fixture(t, "claude_logs.json")))[:40], 400, "reading the body", outcomeMalformed},
		{"form", "text/plain", "", []byte("x"), 415, "application/x-protobuf or application/json", outcomeMediaType},
		{"brotli", "application/x-protobuf", "br", []byte("x"), 415, "send gzip", outcomeMediaType},
		{"two types", "application/json, text/plain", "", fixture(t, "claude_logs.json"), 415, `content type "application/json, text/plain"`, outcomeMediaType},
	}
	for _, c := range cases {
		old := counter(t, r, "logs", c.outcome)
		resp, body := post(t, srv.URL+"/v1/logs", c.ct, c.enc, c.body)
		if resp.StatusCode != c.status || !bytes.Contains(body, []byte(c.reason)) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, resp.StatusCode, body, c.status, c.reason)
		}
		if counter(t, r, "logs", c.outcome) != old+1 {
			t.Errorf("%s: not counted as %s", c.name, c.outcome)
		}
	}
	// A gRPC exporter is answered in gRPC's terms.
	resp, _ := post(t, srv.URL+"/v1/logs", "application/grpc", "", []byte{0, 0, 0, 0, 0})
	if resp.Header.Get("Grpc-Status") != "12" || !strings.Contains(resp.Header.Get("Grpc-Message"), "OTEL_EXPORTER_OTLP_PROTOCOL=http%2Fprotobuf") ||
		counter(t, r, "logs", outcomeGRPC) != 1 {
		t.Errorf("gRPC sender: %d %q", resp.StatusCode, resp.Header)
	}
	// The error is a google.rpc.Status: code 3 (INVALID_ARGUMENT), message.
	_, body := post(t, srv.URL+"/v1/logs", "application/x-protobuf", "", []byte{0xff})
	if len(body) < 4 || body[0] != 0x08 || body[1] != 3 || body[2] != 0x12 {
		t.Errorf("status body % x", body[:min(len(body), 8)])
	}
	// Nothing else disturbed: a good request still lands.
	resp, _ = post(t, srv.URL+"/v1/logs", "application/json", "", fixture(t, "codex_logs.json"))
	if resp.StatusCode != 200 || r.Store.Len() != before+1 {
		t.Errorf("after the bad ones: %d, %d events", resp.StatusCode, r.Store.Len())
	}
}

func TestGzipBombIsRefused(t *testing.T) {
	r, srv, _ := receiver(t, "")
	// 64 MiB of zeros gzip to about 64 KiB.
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	if buf.Len() > 1<<20 {
		t.Fatalf("bomb is %d bytes", buf.Len())
	}
	resp, body := post(t, srv.URL+"/v1/logs", "application/x-protobuf", "gzip", buf.Bytes())
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "after gunzip") {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
	if counter(t, r, "logs", outcomeTooLarge) != 1 {
		t.Error("not counted")
	}
	// A plain body over the limit too.
	resp, _ = post(t, srv.URL+"/v1/logs", "application/x-protobuf", "", make([]byte, MaxBody+10))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("plain oversize: %d", resp.StatusCode)
	}
	// One that says its length over the limit is refused before a byte of
	// it is read (a sender waiting on 100-continue sends none).
	said := &countingReader{r: bytes.NewReader(make([]byte, MaxBody+10))}
	req := httptest.NewRequest(http.MethodPost, "/v1/logs", said)
	req.ContentLength = MaxBody + 10
	req.Header.Set("Content-Type", "application/x-protobuf")
	rec := httptest.NewRecorder()
	r.Handle(Logs).ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || said.n != 0 {
		t.Errorf("said oversize: %d after reading %d bytes", rec.Code, said.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestTokenIsCheckedOnEveryPath: on loopback too (the test server's
// senders are), as a box reached over ssh -R sends from 127.0.0.1. The
// scheme is read in any letter case (RFC 7235; "bearer" was refused).
func TestTokenIsCheckedOnEveryPath(t *testing.T) {
	r, srv, _ := receiver(t, "s3cret")
	js := fixture(t, "claude_logs.json")
	for _, path := range []string{"/v1/logs", "/v1/metrics", "/v1/traces"} {
		for _, auth := range []string{"", "Bearer wrong", "s3cret", "Bearer s3cretx", "bearer", "bearer S3cret", "Basic s3cret", "bearers3cret"} {
			resp, _ := post(t, srv.URL+path, "application/json", "", js, "Authorization", auth)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with %q: %d", path, auth, resp.StatusCode)
			}
		}
	}
	if r.Store.Len() != 0 {
		t.Fatal("an unauthorized request was counted")
	}
	for _, auth := range []string{"Bearer s3cret", "bearer s3cret", "BEARER s3cret", "Bearer  s3cret"} {
		if resp, _ := post(t, srv.URL+"/v1/logs", "application/json", "", js, "Authorization", auth); resp.StatusCode != 200 || r.Store.Len() != 2 {
			t.Errorf("with the token as %q: %d, %d events", auth, resp.StatusCode, r.Store.Len())
		}
	}
	if n := counter(t, r, "logs", outcomeUnauthorized); n != 8 {
		t.Errorf("unauthorized counted %v", n)
	}
}

func TestRejectedRecordsArePartialSuccess(t *testing.T) {
	_, srv, _ := receiver(t, "")
	js := strings.Replace(string(fixture(t, "codex_logs.json")), `{"stringValue":"650"}`, `{"stringValue":"six hundred"}`, 1)
	resp, body := post(t, srv.URL+"/v1/logs", "application/json", "", []byte(js))
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"rejectedLogRecords":"1"`) || !strings.Contains(string(body), "not a number") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestGetIsRefused(t *testing.T) {
	_, srv, _ := receiver(t, "")
	resp, err := http.Get(srv.URL + "/v1/logs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("%d", resp.StatusCode)
	}
}

// The counters are the families they were as the client library's
// counter vectors: a series per label set touched, an Add of 0 included.
func TestCountersExposed(t *testing.T) {
	r, srv, _ := receiver(t, "")
	if fams := exposed(t, r); len(fams) != 0 {
		t.Errorf("counters before any request: %v", fams)
	}
	post(t, srv.URL+"/v1/logs", "application/json", "", fixture(t, "claude_logs.json"))
	post(t, srv.URL+"/v1/logs", "text/plain", "", nil)
	fams := exposed(t, r)
	req := fams["runway_otlp_requests_total"]
	if req == nil || len(req.Metric) != 2 || !strings.HasPrefix(req.GetHelp(), "OTLP/HTTP requests received, by signal and outcome") {
		t.Fatalf("requests %v", req)
	}
	for _, want := range []struct {
		labels []string
		n      float64
	}{
		{[]string{"signal", "logs", "outcome", "ok"}, 1},
		{[]string{"signal", "logs", "outcome", "unsupported_media_type"}, 1},
	} {
		if got := exposedCount(t, r, "runway_otlp_requests_total", want.labels...); got != want.n {
			t.Errorf("%v: %v, want %v", want.labels, got, want.n)
		}
	}
	rec := fams["runway_otlp_usage_records_total"]
	if rec == nil || len(rec.Metric) != 4 || !strings.HasPrefix(rec.GetHelp(), "Usage records read from OTLP requests, by outcome") {
		t.Fatalf("records %v", rec)
	}
	for outcome, n := range map[string]float64{"counted": 2, "duplicate": 0, "ignored": 0, "outside_lookback": 0} {
		if got := exposedCount(t, r, "runway_otlp_usage_records_total", "outcome", outcome); got != n {
			t.Errorf("records %s: %v, want %v", outcome, got, n)
		}
	}
}

// A request that carries only a prompt is kept and is a change: after a
// pause the prompt is exported before its turn's first response has
// finished, and it ends the turn before it.
func TestAPromptAloneIsKept(t *testing.T) {
	r, srv, changes := receiver(t, "")
	before := plog.NewLogs()
	claudeAttrs(before.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), "s1", "r1", t0, 10, 100)
	prompt := plog.NewLogs()
	a := prompt.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes()
	a.PutStr("event.name", "user_prompt")
	a.PutStr("session.id", "s1")
	a.PutStr("event.timestamp", t0.Add(4*time.Minute).Format(time.RFC3339Nano))
	for i, ld := range []plog.Logs{before, prompt, prompt} {
		body, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		if resp, b := post(t, srv.URL+"/v1/logs", "application/x-protobuf", "", body); resp.StatusCode != 200 {
			t.Fatalf("export %d: %d %s", i, resp.StatusCode, b)
		}
	}
	if *changes != 2 {
		t.Errorf("%d changes, want the response's and the prompt's (its retry is none)", *changes)
	}
	if evs := r.Store.Events(); len(evs) != 1 || !evs[0].EndsTurn {
		t.Errorf("events %+v, want the response marked as the end of its turn", evs)
	}
}

// A sender whose clock runs ahead loses its usage (TestUsageFromTheFutureIsRefused):
// the log says why, once in a while, not at every export.
func TestSkewedSenderIsToldOnce(t *testing.T) {
	r, srv, _ := receiver(t, "") // its clock: t0+5m
	var said []string
	r.Logf = func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	ahead := plog.NewLogs()
	claudeAttrs(ahead.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Attributes(), "s1", "r1", t0.Add(5*time.Minute+20*time.Minute), 10, 100)
	body, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ahead)
	for range 3 {
		if resp, b := post(t, srv.URL+"/v1/logs", "application/x-protobuf", "", body); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "20m0s ahead of this machine's clock") {
		t.Errorf("said %q, want one line naming the 20 minutes", said)
	}
	if r.Store.Len() != 0 {
		t.Errorf("%d events held from the future", r.Store.Len())
	}
}

// TestSlowSendersHoldUpNoOne: senders trickling their bodies (slowloris, or
// a slow link) must not stall another sender's export. A single slot for
// reading bodies let one slow sender hold every other for the read timeout.
// Claude Code sends its bodies chunked, gzipped when asked: weighing those
// at the most a body may be let two slow senders stall every other.
func TestSlowSendersHoldUpNoOne(t *testing.T) {
	_, srv, changes := receiver(t, "")
	js := fixture(t, "claude_logs.json")
	var slow []*io.PipeWriter
	// "declared": a sender that says 8 MiB and trickles; two of them held
	// the whole budget, and every other export waited for the read timeout.
	for _, how := range []string{"declared", "declared", "length", "chunked", "gzip", "gzip"} {
		pr, pw := io.Pipe()
		slow = append(slow, pw)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/logs", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		first := js[:10]
		switch how {
		case "length":
			req.ContentLength = int64(len(js))
		case "declared":
			req.ContentLength = MaxBody
		case "gzip":
			req.Header.Set("Content-Encoding", "gzip")
			first = gz(js)[:20]
		}
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		if _, err := pw.Write(first); err != nil { // the server is reading it
			t.Fatal(err)
		}
	}
	resp, body := post(t, srv.URL+"/v1/logs", "application/json", "gzip", gz(js))
	if resp.StatusCode != 200 || *changes != 1 {
		t.Fatalf("beside six slow senders: %d %s, %d changes", resp.StatusCode, body, *changes)
	}
	for _, pw := range slow {
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}
}

// TestExpandingExportsAreRefused: an 8 MiB export of empty attributes (2
// bytes each on the wire, 56 decoded) or of empty JSON members is refused
// with 413 while it decodes, taking no more than a real export's memory;
// one just under the bound is read.
func TestExpandingExportsAreRefused(t *testing.T) {
	emptyAttrs := func(n int) []byte {
		p := pointOf(nil)
		for range n {
			p = p.raw(0x3a, 0x00) // field 7, an empty KeyValue
		}
		return metricsOf(tokenSum(1, p))
	}
	full := emptyAttrs((MaxBody - 200) / 2)
	js := []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[` + strings.Repeat("{},", MaxBody/3-40) + `{}]}]}]}]}`)
	var before, after runtime.MemStats
	for _, c := range []struct {
		name string
		sig  Signal
		enc  Encoding
		body []byte
	}{{"protobuf", Metrics, Protobuf, full}, {"json", Logs, JSON, js}} {
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Decode(c.sig, c.enc, c.body, "h", weight)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, errTooMany) {
			t.Errorf("%s, %d bytes: %v, want %v", c.name, len(c.body), err, errTooMany)
		}
		// Before the bound: 288 MB for the protobuf, 915 MB for the JSON.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: decoding took %d MB", c.name, alloc>>20)
		}
	}
	if _, err := Decode(Metrics, Protobuf, emptyAttrs(maxElements-10), "h", weight); err != nil {
		t.Errorf("%d attributes: %v", maxElements-10, err)
	}
	r, srv, _ := receiver(t, "")
	resp, body := post(t, srv.URL+"/v1/metrics", "application/x-protobuf", "", full)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "smaller batches") {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
	if counter(t, r, "metrics", outcomeTooLarge) != 1 {
		t.Error("not counted")
	}
}

// TestFullBudgetAsksToRetry: a body that outgrows the room left while
// others are read is answered 503 with Retry-After, which exporters retry,
// rather than waiting for room that requests waiting on each other never free.
func TestFullBudgetAsksToRetry(t *testing.T) {
	r, srv, _ := receiver(t, "")
	if !r.bodies.TryAcquire(bodyBudget - 1) {
		t.Fatal("budget taken")
	}
	big := bytes.Repeat([]byte{' '}, 2*bodyUnit)
	resp, body := post(t, srv.URL+"/v1/logs", "application/json", "gzip", gz(big))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("%d %q, Retry-After %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if counter(t, r, "logs", outcomeBusy) != 1 {
		t.Error("not counted")
	}
	r.bodies.Release(bodyBudget - 1)
	if resp, body := post(t, srv.URL+"/v1/logs", "application/json", "gzip", gz(fixture(t, "claude_logs.json"))); resp.StatusCode != 200 {
		t.Errorf("room again: %d %q", resp.StatusCode, body)
	}
}
