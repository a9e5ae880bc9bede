package runway

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// remoteCheck is the named check of doctor's remote section.
func remoteCheck(t *testing.T, checks []doctorLine, text, name string) doctorLine {
	t.Helper()
	for _, c := range checks {
		if c.section == "remote sessions (runway serve)" && c.name == name {
			return c
		}
	}
	t.Fatalf("no %q check in doctor's remote section:\n%s", name, text)
	return doctorLine{}
}

// TestDoctorSeesRunwayServe: with runway serve listening where the config
// says, doctor says so, counts the remote sessions by
// host with the newest event's age, and tells a gRPC sender that hit the
// HTTP port to switch to http/protobuf; before any usage arrives it gives
// the senders' settings.
func TestDoctorSeesRunwayServe(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	env := serveEnv(t, now)
	clock := func() time.Time { return now }
	e := NewEngine(env, EngineOptions{Receive: true, Now: clock})
	srv, err := e.Listen(ServeOptions{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx)
	env.Config.Serve.Listen = srv.Addr().String()
	base := "http://" + srv.Addr().String()

	// Listening, nothing received yet: the senders' settings.
	checks, text := doctorSays(env, clock, false, nil)
	if c := remoteCheck(t, checks, text, "listener"); c.mark != markOK || !strings.Contains(c.detail, "runway listens on "+env.Config.Serve.Listen) {
		t.Errorf("listener: %+v", c)
	}
	if c := remoteCheck(t, checks, text, "remote sessions"); c.mark != markInfo || !strings.Contains(c.fix, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf") ||
		!strings.Contains(c.fix, "CLAUDE_CODE_ENABLE_TELEMETRY=1") {
		t.Errorf("nothing arrived: %+v", c)
	}

	// Two sessions from devbox, one from ci; a real gRPC exporter refused.
	for _, x := range []struct{ session, host string }{{"r1", "devbox"}, {"r2", "devbox"}, {"r3", "ci"}} {
		resp, err := http.Post(base+"/v1/logs", "application/json", bytes.NewReader(remoteExport(x.session, x.host, now.Add(-3*time.Minute), 3)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	conn, err := grpc.NewClient(srv.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The sender itself is told what to change.
	_, err = plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequest())
	if status.Code(err) != codes.Unimplemented || !strings.Contains(status.Convert(err).Message(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf") {
		t.Errorf("gRPC export: %v", err)
	}
	if err := e.remote.Save(env.StateDir); err != nil {
		t.Fatal(err)
	}

	checks, text = doctorSays(env, clock, false, nil)
	c := remoteCheck(t, checks, text, "remote sessions")
	if c.mark != markOK || !strings.Contains(c.detail, "3 sessions") || !strings.Contains(c.detail, "ci (1), devbox (2)") ||
		!strings.Contains(c.detail, "newest event 3m ago") {
		t.Errorf("remote sessions: %+v", c)
	}
	if c := remoteCheck(t, checks, text, "receiver"); !strings.Contains(c.detail, "3 requests taken, 1 refused (1 grpc") {
		t.Errorf("receiver: %+v", c)
	}
	g := remoteCheck(t, checks, text, "gRPC sender")
	if g.mark != markWarn || !strings.Contains(g.fix, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf") {
		t.Errorf("gRPC sender: %+v", g)
	}
	if !strings.Contains(text, "\nremote sessions (runway serve)\n") || !strings.Contains(text, "fix: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf") {
		t.Errorf("doctor text:\n%s", text)
	}
}
