package runway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/time/rate"

	"github.com/agentrunway/runway/metrics"
	"github.com/agentrunway/runway/otlp"
)

// DefaultListen is OTLP/HTTP's default port, on loopback.
const DefaultListen = "127.0.0.1:4318"

// ServeOptions shape the engine's listener.
type ServeOptions struct {
	Listen   string
	Token    string // required on every request when set
	Insecure bool   // allows an address beyond loopback without a token
}

// validListen says whether addr is host:port with a numeric port.
func validListen(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port != "" && strings.Trim(port, "0123456789") == ""
}

// portInRange says whether a valid addr's port is TCP's (0 asks for a free one).
func portInRange(addr string) bool {
	_, port, _ := net.SplitHostPort(addr)
	_, err := strconv.ParseUint(port, 10, 16)
	return err == nil
}

// Loopback says whether host only reaches this machine.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// checkListen refuses a bad address, and one that would take telemetry
// from the network without a token unless Insecure.
func checkListen(o ServeOptions) error {
	if !validListen(o.Listen) {
		return fmt.Errorf("listen address %q: want host:port, like %s", o.Listen, DefaultListen)
	}
	if !portInRange(o.Listen) {
		_, port, _ := net.SplitHostPort(o.Listen)
		return fmt.Errorf("listen address %q: port %s is not a TCP port: want 1 to 65535, like %s", o.Listen, port, DefaultListen)
	}
	if strings.ContainsFunc(o.Token, unicode.IsControl) {
		return errors.New("[serve] token or RUNWAY_SERVE_TOKEN holds a control character, which no sender can put in a header: use letters, digits and punctuation")
	}
	host, _, _ := net.SplitHostPort(o.Listen)
	if Loopback(host) || o.Token != "" || o.Insecure {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	return fmt.Errorf("listening on %s (%s) takes telemetry from the network: set a token ([serve] token or RUNWAY_SERVE_TOKEN) that senders put in an Authorization: Bearer header, or pass --insecure", o.Listen, where)
}

// Server is the engine's listener: the OTLP/HTTP receiver and /metrics.
type Server struct {
	ln      net.Listener
	srv     *http.Server
	listen  string // as asked
	grace   time.Duration
	release func() // the lock on the state folder's remote sessions
}

// Listen binds the listener of an engine made with EngineOptions.Receive.
func (e *Engine) Listen(o ServeOptions) (*Server, error) {
	if e.remote == nil {
		return nil, errors.New("runway: the engine does not receive telemetry (EngineOptions.Receive)")
	}
	if err := checkListen(o); err != nil {
		return nil, err
	}
	release, err := otlp.LockStore(e.env.StateDir, o.Listen)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		release()
		return nil, fmt.Errorf("listen on %s: %w (is another runway serve or an OpenTelemetry collector on it? pick another with --listen)", o.Listen, err)
	}
	srv := &http.Server{
		Handler:           e.Handler(o.Token),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		Protocols:         new(http.Protocols),
	}
	// HTTP/2 without TLS too: a gRPC exporter sent here by mistake then
	// reaches the receiver, which tells it to switch to http/protobuf.
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	e.remote.SetListen(ln.Addr().String())
	return &Server{ln: ln, srv: srv, listen: o.Listen, grace: 5 * time.Second, release: release}, nil
}

// Addr is the address bound (the port chosen when ":0" was asked).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Where says where it serves as a person reads it: bound to every
// interface, Go names the address [::], which no sender uses.
func (s *Server) Where() string {
	host, _, _ := net.SplitHostPort(s.listen)
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	if ip := net.ParseIP(strings.Trim(host, "[]")); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return "http://" + s.ln.Addr().String()
	}
	if host == "" {
		host = "0.0.0.0"
	}
	to := "this machine's name or address"
	if name, err := os.Hostname(); err == nil && name != "" {
		to = name
	}
	return fmt.Sprintf("http://%s (every interface: senders use http://%s:%s)", net.JoinHostPort(host, port), to, port)
}

// Serve answers until ctx ends, then lets requests in flight finish
// within a grace period and cuts the rest: a sender trickling its body is
// no reason to fail a stop that was asked for.
func (s *Server) Serve(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.srv.Serve(s.ln) }()
	select {
	case err := <-done:
		s.release()
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	err := s.srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-done
	s.release()
	return err
}

// Handler is OTLP/HTTP on POST /v1/logs, /v1/metrics, /v1/traces and
// Prometheus on GET /metrics, every one behind the token when set.
func (e *Engine) Handler(token string) http.Handler {
	recv := otlp.NewReceiver(e.remote, e.env.Config.CacheReadWeight)
	recv.Now = e.now
	recv.OnChange = e.Changed
	// A sender misconfigured in a loop must not flood the log.
	lim := rate.NewLimiter(rate.Every(10*time.Second), 5)
	recv.Logf = func(format string, args ...any) {
		if lim.Allow() {
			e.opts.Logf(format, args...)
		}
	}
	recv.Sayf = e.opts.Logf
	scrape := metrics.Handler(metrics.Snapshot(e.Latest, e.now), recv.Metrics, metrics.Process)
	mux := http.NewServeMux()
	signals := []otlp.Signal{otlp.Logs, otlp.Metrics, otlp.Traces}
	for _, s := range signals {
		mux.Handle("/v1/"+string(s), recv.Authorize(token, string(s), recv.Handle(s)))
	}
	mux.Handle("/metrics", recv.Authorize(token, "scrape", scrape))
	mux.Handle("/", recv.Authorize(token, "other", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			// gRPC's paths: /opentelemetry.proto.collector.logs.v1.LogsService/Export…
			signal := "other"
			for _, s := range signals {
				if strings.Contains(r.URL.Path, "."+strings.TrimSuffix(string(s), "s")) {
					signal = string(s)
				}
			}
			recv.RefuseGRPC(w, signal)
			return
		}
		http.Error(w, "runway: OTLP/HTTP on POST /v1/logs and /v1/metrics, Prometheus on GET /metrics", http.StatusNotFound)
	})))
	return mux
}
