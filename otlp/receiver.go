package otlp

import (
	"compress/gzip"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/agentrunway/runway/metrics"
)

// MaxBody is the largest request body accepted, after gunzip: an export
// from an agent is a few kilobytes, a collector's batch well under this.
const MaxBody = 8 << 20

// Receiver is the OTLP/HTTP endpoint: POST /v1/logs, /v1/metrics and
// /v1/traces (read and dropped), protobuf or JSON, optionally gzipped.
type Receiver struct {
	Store  *Store
	Weight float64 // the cache-read weight
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnChange is called after a request added usage.
	OnChange func()
	// Logf reports refused requests (rate-limited by the caller if need be).
	Logf func(format string, args ...any)
	// Sayf says what the receiver says once (Logf when nil): a line a
	// rate limit must not swallow.
	Sayf func(format string, args ...any)

	requests *metrics.CounterVec
	records  *metrics.CounterVec
	dropped  *metrics.CounterVec

	droppedSaid atomic.Bool
	// bodies weighs the request bodies being read, in units of bodyUnit,
	// taken as each body's buffer grows: a sender trickling its body holds
	// one unit, whatever it says it will send (weighing a chunked or gzipped
	// body at the most it may be let two slow senders stall every other).
	bodies *semaphore.Weighted
	// decoding is held while a body is decoded and counted: one at a time,
	// so a flood costs one export's decoded memory (some 60 MB), not one
	// per connection.
	decoding chan struct{}

	skewMu   sync.Mutex
	skewSaid time.Time // when saySkew last spoke
}

// NewReceiver returns a Receiver that keeps what it counts in store.
func NewReceiver(store *Store, weight float64) *Receiver {
	return &Receiver{
		Store:    store,
		Weight:   weight,
		bodies:   semaphore.NewWeighted(bodyBudget),
		decoding: make(chan struct{}, 1),
		requests: metrics.NewCounterVec("runway_otlp_requests_total",
			"OTLP/HTTP requests received, by signal and outcome (ok, or why the request was refused).",
			"signal", "outcome"),
		records: metrics.NewCounterVec("runway_otlp_usage_records_total",
			"Usage records read from OTLP requests, by outcome: counted, duplicate, ignored (metric points of a session whose log events count), outside_lookback (older than the lookback, or dated ahead of the clock) or rejected.",
			"outcome"),
		dropped: metrics.NewCounterVec("runway_otlp_dropped_total",
			"Records runway let go, the oldest first, to hold no more than its bounds (a sender sent more than runway keeps), by kind: events (responses), prompts or series (cumulative token.usage series).",
			"kind"),
	}
}

// Metrics is the receiver's counters, a source for /metrics.
func (r *Receiver) Metrics() []metrics.Family {
	return []metrics.Family{r.requests.Family(), r.records.Family(), r.dropped.Family()}
}

// Outcomes of a request, as counted.
const (
	outcomeOK           = "ok"
	outcomeMalformed    = "malformed"
	outcomeTooLarge     = "too_large"
	outcomeMediaType    = "unsupported_media_type"
	outcomeMethod       = "method_not_allowed"
	outcomeUnauthorized = "unauthorized"
	outcomeGRPC         = "grpc"
	outcomeBusy         = "busy"
)

// grpcHint is what a gRPC sender is told.
const grpcHint = "runway speaks OTLP/HTTP, not gRPC: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (Codex: otlp-http)"

// Handle serves one signal's path.
func (r *Receiver) Handle(sig Signal) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.serve(sig, w, req)
	})
}

func (r *Receiver) serve(sig Signal, w http.ResponseWriter, req *http.Request) {
	enc, ok := r.encoding(sig, w, req)
	if !ok {
		return
	}
	held := int64(1)
	if r.bodies.Acquire(req.Context(), held) != nil {
		return // the sender left
	}
	defer func() { r.bodies.Release(held) }()
	// Growing never waits: requests waiting for each other's room would
	// wait for ever. The sender retries a 503.
	room := func(size int) bool {
		units := int64((size + bodyUnit - 1) / bodyUnit)
		if units <= held {
			return true
		}
		if !r.bodies.TryAcquire(units - held) {
			return false
		}
		held = units
		return true
	}
	body, status, err := readBody(req, room)
	if err != nil {
		outcome := outcomeMalformed
		switch status {
		case http.StatusRequestEntityTooLarge:
			outcome = outcomeTooLarge
		case http.StatusUnsupportedMediaType:
			outcome = outcomeMediaType
		case http.StatusServiceUnavailable:
			outcome = outcomeBusy
			w.Header().Set("Retry-After", "1")
		}
		r.refuse(w, sig, enc, outcome, status, err.Error())
		return
	}
	select {
	case r.decoding <- struct{}{}:
		defer func() { <-r.decoding }()
	case <-req.Context().Done():
		return
	}
	b, err := Decode(sig, enc, body, sender(req), r.Weight)
	if errors.Is(err, errTooMany) {
		r.refuse(w, sig, enc, outcomeTooLarge, http.StatusRequestEntityTooLarge, err.Error())
		return
	}
	if err != nil {
		r.refuse(w, sig, enc, outcomeMalformed, http.StatusBadRequest, err.Error())
		return
	}
	r.count(string(sig), outcomeOK)
	r.keep(sig, b)
	r.succeed(w, sig, enc, b)
}

// encoding is the request's body encoding; ok is false when the request
// was refused (not a POST, another content type, gRPC).
func (r *Receiver) encoding(sig Signal, w http.ResponseWriter, req *http.Request) (enc Encoding, ok bool) {
	if req.Method != http.MethodPost {
		r.count(string(sig), outcomeMethod)
		w.Header().Set("Allow", http.MethodPost)
		r.fail(w, Protobuf, http.StatusMethodNotAllowed, "OTLP export is a POST")
		return "", false
	}
	header := req.Header.Get("Content-Type")
	ct, _, _ := mime.ParseMediaType(header)
	if ct == "" && strings.TrimSpace(header) != "" {
		ct = header // unreadable: refused as what it says, not read as protobuf
	}
	switch {
	case ct == "application/x-protobuf" || ct == "application/protobuf" || ct == "":
		return Protobuf, true
	case ct == "application/json":
		return JSON, true
	case strings.HasPrefix(ct, "application/grpc"):
		r.RefuseGRPC(w, string(sig))
	default:
		r.refuse(w, sig, Protobuf, outcomeMediaType, http.StatusUnsupportedMediaType,
			fmt.Sprintf("content type %q: send application/x-protobuf or application/json", ct))
	}
	return "", false
}

// keep adds a batch to the store and counts what became of its records.
func (r *Receiver) keep(sig Signal, b Batch) {
	// A batch of prompts alone counts too: after a pause the prompt goes
	// out before the first response of its turn has finished.
	if len(b.Events)+len(b.Points)+len(b.Prompts) > 0 {
		a := r.Store.Add(r.now(), b)
		if a.Ahead > 0 {
			r.saySkew(r.now(), sig, a.Ahead)
		}
		r.records.Add(uint64(a.Events), "counted")
		r.records.Add(uint64(a.Duplicates), "duplicate")
		r.records.Add(uint64(a.Ignored), "ignored")
		r.records.Add(uint64(a.Stale), "outside_lookback")
		if a.Dropped.Any() {
			r.sayDropped(sig, a.Dropped)
		}
		if a.Events+a.Prompts > 0 && r.OnChange != nil {
			r.OnChange()
		}
	}
	if b.Rejected > 0 {
		r.records.Add(uint64(b.Rejected), "rejected")
		r.logf("runway: OTLP %s: %d usage records rejected: %s", sig, b.Rejected, b.Reason)
	}
}

func (r *Receiver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// RefuseGRPC answers a gRPC exporter pointed at this port (Claude Code's
// quick start uses grpc) in gRPC's own terms, so its log says what to
// change; signal labels the count.
func (r *Receiver) RefuseGRPC(w http.ResponseWriter, signal string) {
	r.count(signal, outcomeGRPC)
	r.logf("runway: OTLP %s refused: %s", signal, grpcHint)
	w.Header().Set("Content-Type", "application/grpc")
	w.Header().Set("Grpc-Status", "12") // UNIMPLEMENTED
	w.Header().Set("Grpc-Message", url.PathEscape(grpcHint))
	w.WriteHeader(http.StatusOK)
}

// refuse answers an error and counts it.
func (r *Receiver) refuse(w http.ResponseWriter, sig Signal, enc Encoding, outcome string, status int, reason string) {
	r.count(string(sig), outcome)
	r.logf("runway: OTLP %s refused (%d): %s", sig, status, reason)
	r.fail(w, enc, status, reason)
}

// count counts a request's outcome, in /metrics and in the saved state.
func (r *Receiver) count(signal, outcome string) {
	r.requests.Inc(signal, outcome)
	r.Store.noteRequest(signal, outcome, r.now())
}

// saySkew says, at most once in skewSaidEvery, that a sender's records were
// left out for being dated ahead of this clock: a remote box whose clock is
// off loses its sessions, and nothing else would say why.
func (r *Receiver) saySkew(now time.Time, sig Signal, ahead time.Duration) {
	r.skewMu.Lock()
	said := !r.skewSaid.IsZero() && now.Sub(r.skewSaid) < skewSaidEvery
	if !said {
		r.skewSaid = now
	}
	r.skewMu.Unlock()
	if !said {
		step := time.Second
		if ahead >= time.Minute {
			step = time.Minute // the export's own delay blurs the seconds
		}
		r.logf("runway: OTLP %s: usage dated up to %s ahead of this machine's clock was left out: is the sender's clock right? (timedatectl, or ntp)",
			sig, ahead.Round(step))
	}
}

// sayDropped counts what the store let go to stay within its bounds, and
// says so the first time: the remote figures then lack the oldest usage.
func (r *Receiver) sayDropped(sig Signal, d Dropped) {
	r.dropped.Add(uint64(d.Events), "events")
	r.dropped.Add(uint64(d.Prompts), "prompts")
	r.dropped.Add(uint64(d.Series), "series")
	if r.droppedSaid.Swap(true) {
		return
	}
	say := r.Sayf
	if say == nil {
		say = r.logf
	}
	say("runway: OTLP %s: senders sent more than runway keeps (%d responses of %d sessions, %d prompts, %d cumulative series, %d MiB saved): the oldest are let go and counted in runway_otlp_dropped_total; said once",
		sig, MaxEvents, MaxSessions, MaxPrompts, MaxSeries, (maxEventBytes+maxPromptBytes+maxSeriesBytes)>>20)
}

// skewSaidEvery bounds how often saySkew speaks: exporters send every few
// seconds.
const skewSaidEvery = 10 * time.Minute

func (r *Receiver) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// Authorize wraps next with the bearer token check; an empty token lets
// every request through. A refusal is counted under signal. Loopback is
// no exception: a box reached over ssh -R sends from 127.0.0.1.
func (r *Receiver) Authorize(token, signal string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !bearer(req.Header.Get("Authorization"), token) {
			r.count(signal, outcomeUnauthorized)
			w.Header().Set("WWW-Authenticate", `Bearer realm="runway"`)
			r.fail(w, Protobuf, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <[serve] token>")
			return
		}
		next.ServeHTTP(w, req)
	})
}

// bearer says whether an Authorization header carries token: the scheme
// in any letter case (RFC 7235), the credentials exactly.
func bearer(header, token string) bool {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimLeft(cred, " ")), []byte(token)) == 1
}

// readBody reads the request body, gunzipped, refusing more than MaxBody
// either way: a small gzip bomb is stopped at MaxBody, not inflated. room
// says whether the buffer may grow to a size; when it may not, the answer
// is 503.
func readBody(req *http.Request, room func(size int) bool) ([]byte, int, error) {
	if req.ContentLength > MaxBody {
		// Said before a byte is read: a client waiting on 100-continue
		// never sends it.
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d MiB", MaxBody>>20)
	}
	var rd io.Reader = http.MaxBytesReader(nil, req.Body, MaxBody)
	enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, tooLarge(err, http.StatusBadRequest), fmt.Errorf("body is not gzip: %v", err)
		}
		defer zr.Close()
		rd = zr
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("content encoding %q: send gzip or none", req.Header.Get("Content-Encoding"))
	}
	// Read at its size when it is known (one byte more sees the end):
	// doubling a buffer to 8 MiB allocates twice that. That size is taken
	// once a first unit came, not before: two senders declaring 8 MiB and
	// trickling held the whole budget.
	size, known := bodyUnit, 0
	if n := req.ContentLength; n >= 0 && (enc == "" || enc == "identity") {
		known = int(min(n, MaxBody)) + 1
		size = min(known, bodyUnit)
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			next := min(2*cap(buf), MaxBody+1)
			if known > cap(buf) {
				next = known
			}
			if !room(next) {
				return nil, http.StatusServiceUnavailable, errors.New("busy reading other exports: retry")
			}
			buf = append(make([]byte, 0, next), buf...)
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > MaxBody {
			if enc == "gzip" {
				return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d MiB after gunzip", MaxBody>>20)
			}
			return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d MiB", MaxBody>>20)
		}
		if err == io.EOF {
			return buf, http.StatusOK, nil
		}
		if err != nil {
			status := tooLarge(err, http.StatusBadRequest)
			if status == http.StatusRequestEntityTooLarge {
				return nil, status, fmt.Errorf("body over %d MiB", MaxBody>>20)
			}
			return nil, status, fmt.Errorf("reading the body: %v", err)
		}
	}
}

// bodyUnit is how the room of the bodies being read is counted, and the
// buffer a body of unknown size starts in.
const bodyUnit = 64 << 10

// bodyBudget is the units of request bodies read at once: two exports at
// the largest.
const bodyBudget = 2 * (MaxBody + 1 + bodyUnit - 1) / bodyUnit

func tooLarge(err error, otherwise int) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	return otherwise
}

// sender is the address a request came from, for records without a
// host.name.
func sender(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}

// succeed answers the signal's export response in the request's
// encoding, with the rejected usage records as a partial success.
func (r *Receiver) succeed(w http.ResponseWriter, sig Signal, enc Encoding, b Batch) {
	w.Header().Set("Content-Type", contentType(enc))
	w.WriteHeader(http.StatusOK)
	w.Write(exportResponse(sig, enc, b.Rejected, b.Reason))
}

// exportResponse is the signal's Export…ServiceResponse: partial_success
// (1) with the count of rejected records (1) and error_message (2); in JSON
// the count is a string, as proto3 writes an int64.
func exportResponse(sig Signal, enc Encoding, rejected int, reason string) []byte {
	if rejected <= 0 {
		rejected, reason = 0, ""
	}
	if enc == JSON {
		partial := map[string]string{}
		if rejected > 0 {
			count := map[Signal]string{Logs: "rejectedLogRecords", Metrics: "rejectedDataPoints", Traces: "rejectedSpans"}[sig]
			partial[count] = strconv.Itoa(rejected)
			if reason != "" {
				partial["errorMessage"] = reason
			}
		}
		b, _ := json.Marshal(map[string]any{"partialSuccess": partial})
		return b
	}
	var partial []byte
	if rejected > 0 {
		partial = appendTag(partial, 1, wireVarint)
		partial = appendVarint(partial, uint64(rejected))
		if reason != "" {
			partial = appendTag(partial, 2, wireLen)
			partial = appendLen(partial, []byte(reason))
		}
	}
	return appendLen(appendTag(nil, 1, wireLen), partial)
}

func contentType(enc Encoding) string {
	if enc == JSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// fail answers an OTLP error: a google.rpc.Status with the reason, in the
// request's encoding (OTLP/HTTP spec), so an exporter logs why.
func (r *Receiver) fail(w http.ResponseWriter, enc Encoding, status int, reason string) {
	code := grpcCode(status)
	var body []byte
	if enc == JSON {
		body, _ = json.Marshal(struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{code, reason})
	} else {
		body = statusProto(code, reason)
	}
	w.Header().Set("Content-Type", contentType(enc))
	w.WriteHeader(status)
	w.Write(body)
}

// grpcCode is the google.rpc.Code closest to an HTTP status.
func grpcCode(status int) int {
	switch status {
	case http.StatusBadRequest:
		return 3 // INVALID_ARGUMENT
	case http.StatusUnauthorized:
		return 16 // UNAUTHENTICATED
	case http.StatusRequestEntityTooLarge:
		return 8 // RESOURCE_EXHAUSTED
	case http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		return 12 // UNIMPLEMENTED
	case http.StatusServiceUnavailable:
		return 14 // UNAVAILABLE
	}
	return 13 // INTERNAL
}

// statusProto encodes google.rpc.Status{code: 1, message: 2} by hand: two
// fields do not need a generated type.
func statusProto(code int, message string) []byte {
	b := appendVarint(appendTag(nil, 1, wireVarint), uint64(code))
	return appendLen(appendTag(b, 2, wireLen), []byte(message))
}
