package runway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
	"github.com/agentrunway/runway/text"
)

// serveEnv is an offline Env whose sample log says Claude's 5-hour window
// went from 40 to 45 % in the last 10 minutes, reset in 2 hours.
func serveEnv(t testing.TB, now time.Time) Env { return burningEnv(t, now, 40, 1) }

// pressedEnv is serveEnv with a window under pressure: 80 % → 90 % in 10
// minutes, so it runs out well before the reset.
func pressedEnv(t *testing.T, now time.Time) Env { return burningEnv(t, now, 80, 2) }

func burningEnv(t testing.TB, now time.Time, from, step float64) Env {
	t.Helper()
	env := offlineEnv(t.TempDir())
	log, err := quota.OpenLog(env.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := log.Append(burn.Sample{ObservedAt: now.Add(time.Duration(i-5) * 2 * time.Minute), Provider: burn.Claude, Window: burn.FiveHour,
			WindowMinutes: 300, UsedPercent: from + step*float64(i), ResetsAt: now.Add(2 * time.Hour), Source: burn.SourceStatusline}); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// remoteExport is an OTLP/JSON logs export of Claude Code api_request
// events of one session on host, every 10 s until now.
func remoteExport(session, host string, now time.Time, n int) []byte {
	var recs []string
	for i := 0; i < n; i++ {
		recs = append(recs, requestRecord(session, now.Add(-time.Duration(n-1-i)*10*time.Second), i))
	}
	return logsExport(host, recs)
}

// logsExport is an OTLP/JSON logs export of Claude Code's records on host.
func logsExport(host string, recs []string) []byte {
	return []byte(fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}},
{"key":"host.name","value":{"stringValue":%q}}]},"scopeLogs":[{"logRecords":[%s]}]}]}`, host, strings.Join(recs, ",")))
}

// requestRecord is Claude Code's api_request log record: 100 input, 900
// output and 10,000 cache-read tokens.
func requestRecord(session string, at time.Time, i int) string {
	return fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"claude_code.api_request"},"attributes":[
{"key":"session.id","value":{"stringValue":%q}},{"key":"event.name","value":{"stringValue":"api_request"}},
{"key":"event.timestamp","value":{"stringValue":%q}},{"key":"model","value":{"stringValue":"claude-opus-4-5"}},
{"key":"input_tokens","value":{"intValue":"100"}},{"key":"output_tokens","value":{"intValue":"900"}},
{"key":"cache_read_tokens","value":{"intValue":"10000"}},{"key":"cache_creation_tokens","value":{"intValue":"0"}},
{"key":"request_id","value":{"stringValue":"req_%d"}},{"key":"duration_ms","value":{"intValue":"8000"}}]}`,
		at.UnixNano(), session, at.Format(time.RFC3339Nano), i)
}

// promptRecord is Claude Code's user_prompt log record.
func promptRecord(session string, at time.Time) string {
	return fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"claude_code.user_prompt"},"attributes":[
{"key":"session.id","value":{"stringValue":%q}},{"key":"event.name","value":{"stringValue":"user_prompt"}},
{"key":"event.timestamp","value":{"stringValue":%q}},{"key":"prompt_length","value":{"stringValue":"6"}},
{"key":"prompt","value":{"stringValue":"<REDACTED>"}}]}`, at.UnixNano(), session, at.Format(time.RFC3339Nano))
}

// TestRemoteSessionResumesAfterAPause: a session on another machine whose
// user comes back after 8 minutes away gets its new pace at once, as a
// local one does (burn.Config.BurstGapAfterTurn): the user_prompt Claude
// Code exports says the response before it ended its turn. Without the
// prompts (an exporter that sends only api_request events) the 30-minute
// burst gap holds, and the pause is averaged in.
func TestRemoteSessionResumesAfterAPause(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	rate := func(withPrompts bool) float64 {
		t.Helper()
		env := serveEnv(t, now)
		// 40 responses 12 s apart, the turn ends; 8 minutes later a
		// prompt and 5 responses 6 s apart, the last one now.
		resumed := now.Add(-24*time.Second - 2*time.Second)
		before := resumed.Add(-8 * time.Minute)
		var at []time.Time
		for i := range 40 {
			at = append(at, before.Add(-time.Duration(39-i)*12*time.Second))
		}
		for i := range 5 {
			at = append(at, now.Add(-time.Duration(4-i)*6*time.Second))
		}
		var recs []string
		if withPrompts {
			recs = append(recs, promptRecord("far", at[0].Add(-3*time.Second)), promptRecord("far", resumed))
		}
		for i, a := range at {
			recs = append(recs, requestRecord("far", a, i))
		}
		if n := len(saveRemote(t, env, now, logsExport("devbox", recs))); n != 45 {
			t.Fatalf("export: %d events", n)
		}
		s := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
		if len(s.Sessions) != 1 {
			t.Fatalf("%d sessions", len(s.Sessions))
		}
		t.Logf("prompts %v: %.1f tok/s", withPrompts, s.Sessions[0].TokensPerS)
		return s.Sessions[0].TokensPerS
	}
	// Each response weighs 100 + 900 + 0.1 × 10,000 = 2,000 tokens: the
	// pace since the user came back is 2,000 every 6 s.
	pace := 2000.0 / 6
	if got := rate(true); math.Abs(got-pace)/pace > 0.01 {
		t.Errorf("with the prompts: %.1f tok/s, want the pace since the user came back, %.1f", got, pace)
	}
	if got := rate(false); math.Abs(got-pace)/pace < 0.2 {
		t.Errorf("without the prompts: %.1f tok/s; the pause was expected averaged in (the test no longer shows what prompts change)", got)
	}
}

func TestServeCountsRemoteSessionsByHost(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	env := serveEnv(t, now)
	before := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	p := before.Provider(burn.Claude)
	if p == nil || p.ElsewhereQuotaMinutesPerHour <= 0 || len(before.Sessions) != 0 {
		t.Fatalf("before: want the whole burn elsewhere and no session, got %+v", before)
	}

	l := startLive(t, env, now, func(o *EngineOptions) { o.Receive = true })
	srv, err := l.e.Listen(ServeOptions{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	base := "http://" + srv.Addr().String()

	resp, err := http.Post(base+"/v1/logs", "application/json", bytes.NewReader(remoteExport("remote-1", "devbox", now, 6)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("export: %d", resp.StatusCode)
	}
	var got burn.Snapshot
	l.waitFor("the remote session", func(s burn.Snapshot) bool {
		got = s
		return len(s.Sessions) == 1
	})
	x := got.Sessions[0]
	if x.ID != "remote-1" || x.Host != "devbox" || x.Model != "claude-opus-4-5" || x.RateKind != burn.Measured {
		t.Errorf("session %+v", x)
	}
	// The burn the remote session explains is no longer elsewhere.
	after := got.Provider(burn.Claude)
	if after.ElsewhereQuotaMinutesPerHour != 0 || x.QuotaMinutesPerHour <= 0 ||
		x.QuotaMinutesPerHour > p.ElsewhereQuotaMinutesPerHour+1e-9 {
		t.Errorf("elsewhere %v → %v, session share %v", p.ElsewhereQuotaMinutesPerHour, after.ElsewhereQuotaMinutesPerHour, x.QuotaMinutesPerHour)
	}
	if text.Report(got, time.UTC) == "" || !strings.Contains(text.Report(got, time.UTC), "on devbox") {
		t.Errorf("now --long does not name the host:\n%s", text.Report(got, time.UTC))
	}

	// /metrics has the window and the session with its host.
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`runway_window_used_ratio{provider="claude",window="5h"} 0.45`,
		`runway_session_quota_seconds_per_second{host="devbox",project="",provider="claude",session="remote-1"}`,
		`runway_window_state{provider="claude",state="on_track",window="5h"}`,
		`runway_otlp_requests_total{outcome="ok",signal="logs"} 1`,
		"go_goroutines", "process_start_time_seconds",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Resident memory where /proc tells it.
	if runtime.GOOS == "linux" && !strings.Contains(string(text), "process_resident_memory_bytes") {
		t.Error("/metrics lacks process_resident_memory_bytes")
	}

	// Stopping saves the remote sessions; a later `runway now` (a cold
	// evaluation, the snapshot gone stale) still counts them.
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	l.stop()
	os.Remove(filepath.Join(env.StateDir, SnapshotName))
	cold := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now.Add(5 * time.Second) }}).Snapshot
	if len(cold.Sessions) != 1 || cold.Sessions[0].Host != "devbox" {
		t.Errorf("runway now after serve: %+v", cold.Sessions)
	}
}

func TestLocalLogWinsOverItsOTLPCopy(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	local := tail.Usage{Events: []burn.Event{{Provider: burn.Claude, Session: "s-local", At: now, Weighted: 100}}}
	remote := []burn.Event{
		{Provider: burn.Claude, Session: "s-local", Host: "laptop", At: now, Weighted: 100, Key: "a"},
		{Provider: burn.Claude, Session: "s-remote", Host: "box", At: now, Weighted: 50, Key: "b"},
		{Provider: burn.Claude, Session: "s-future", Host: "box", At: now.Add(time.Minute), Weighted: 50, Key: "c"},
	}
	got := withRemote(local, remote, now)
	if len(got.Events) != 2 || got.Events[1].Session != "s-remote" {
		t.Errorf("%+v: want the local event and the remote-only session, not the copy nor one after --at", got.Events)
	}
	if len(local.Events) != 1 {
		t.Error("the tailer's slice was changed")
	}
}

// TestListenBeyondLoopbackNeedsATokenOrInsecure; a port out of range is
// said as such (--listen :99999 once asked for a token, and
// 127.0.0.1:99999 blamed another runway on the port).
func TestListenBeyondLoopbackNeedsATokenOrInsecure(t *testing.T) {
	for _, c := range []struct {
		o  ServeOptions
		ok bool
	}{
		{ServeOptions{Listen: "127.0.0.1:4318"}, true},
		{ServeOptions{Listen: "[::1]:4318"}, true},
		{ServeOptions{Listen: "localhost:4318"}, true},
		{ServeOptions{Listen: "0.0.0.0:4318"}, false},
		{ServeOptions{Listen: ":4318"}, false},
		{ServeOptions{Listen: "0.0.0.0:4318", Token: "t"}, true},
		{ServeOptions{Listen: ":4318", Insecure: true}, true},
		{ServeOptions{Listen: "4318"}, false},
		{ServeOptions{Listen: "host:port"}, false},
		{ServeOptions{Listen: "127.0.0.1:65536"}, false},
		{ServeOptions{Listen: ":99999"}, false},
		{ServeOptions{Listen: ":99999", Token: "t"}, false},
		{ServeOptions{Listen: "127.0.0.1:0"}, true},
		{ServeOptions{Listen: "127.0.0.1:4318", Token: "s3\x01cret"}, false},
	} {
		err := checkListen(c.o)
		if (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.o, err)
		}
		if err != nil && c.o.Listen == ":4318" && !strings.Contains(err.Error(), "RUNWAY_SERVE_TOKEN") {
			t.Errorf("the refusal does not say what to do: %v", err)
		}
		if outOfRange := strings.HasSuffix(c.o.Listen, ":99999") || strings.HasSuffix(c.o.Listen, ":65536"); outOfRange &&
			(err == nil || !strings.Contains(err.Error(), "65535") || strings.Contains(err.Error(), "token")) {
			t.Errorf("%s: %v", c.o.Listen, err)
		}
	}
}

// TestEveryRouteIsBehindTheToken: the engine's handler asks every route for
// the token (otlp's tests check how it is read; cmd's that the setting
// reaches it).
func TestEveryRouteIsBehindTheToken(t *testing.T) {
	now := time.Now().UTC()
	h := NewEngine(serveEnv(t, now), EngineOptions{Receive: true, Now: func() time.Time { return now }}).Handler("s3cret")
	for _, route := range []struct{ method, path string }{
		{"POST", "/v1/logs"}, {"POST", "/v1/metrics"}, {"POST", "/v1/traces"}, {"GET", "/metrics"}, {"GET", "/other"},
	} {
		for _, auth := range []string{"", "Bearer s3cret"} {
			r := httptest.NewRequest(route.method, route.path, strings.NewReader("{}"))
			r.Header.Set("Content-Type", "application/json")
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if refused := w.Code == http.StatusUnauthorized; refused != (auth == "") {
				t.Errorf("%s %s with %q: %d", route.method, route.path, auth, w.Code)
			}
		}
	}
}

// TestServerSaysWhereItServes: bound to 0.0.0.0 or to no host it said
// http://[::]:PORT.
func TestServerSaysWhereItServes(t *testing.T) {
	now := time.Now().UTC()
	e := NewEngine(serveEnv(t, now), EngineOptions{Receive: true, Now: func() time.Time { return now }})
	for listen, want := range map[string]string{"0.0.0.0:0": "http://0.0.0.0:", ":0": "http://0.0.0.0:", "127.0.0.1:0": "http://127.0.0.1:"} {
		srv, err := e.Listen(ServeOptions{Listen: listen, Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		where := srv.Where()
		srv.ln.Close()
		srv.release()
		if !strings.HasPrefix(where, want) || strings.Contains(where, "[::]") {
			t.Errorf("%s: %q", listen, where)
		}
	}
}

// TestTwoServesOnOneStateFolder: the second engine to listen for one
// state folder is refused before it binds, as it would save its sessions
// over the first's.
func TestTwoServesOnOneStateFolder(t *testing.T) {
	now := time.Now().UTC()
	env := serveEnv(t, now)
	first, err := NewEngine(env, EngineOptions{Receive: true}).Listen(ServeOptions{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.ln.Close()
	defer first.release()
	if _, err := NewEngine(env, EngineOptions{Receive: true}).Listen(ServeOptions{Listen: "127.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), "already receives telemetry") {
		t.Errorf("second serve: %v", err)
	}
}

// A receiver whose last save fails says so in its exit status: what it
// held is lost to runway now once it stops.
func TestServeLastSaveFailureIsTheExitError(t *testing.T) {
	now := time.Now().UTC()
	env := serveEnv(t, now)
	// A folder where the store file goes: no save can replace it.
	if err := os.MkdirAll(filepath.Join(env.StateDir, otlp.StoreName, "held"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(env, EngineOptions{Receive: true, Now: func() time.Time { return now }})
	b, err := otlp.Decode(otlp.Logs, otlp.JSON, remoteExport("far-1", "devbox", now, 3), "127.0.0.1", burn.DefaultCacheReadWeight)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	e.remote.Add(now, b)
	err = e.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "remote sessions not saved at exit") {
		t.Errorf("Run: %v, want the failed save", err)
	}
}

func TestServeConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte("[serve]\nlisten = \"0.0.0.0:9999\"\ntoken = \"x\"\nnotice_command = [\"notify\", \"-u\"]\n"), 0o600)
	c, err := loadConfig(path)
	if err != nil || c.Serve.Listen != "0.0.0.0:9999" || c.Serve.Token != "x" || len(c.Serve.NoticeCommand) != 2 {
		t.Fatalf("%+v %v", c.Serve, err)
	}
	os.WriteFile(path, []byte("[serve]\nlisten = \"4318\"\n"), 0o600)
	if _, err := loadConfig(path); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad listen: %v", err)
	}
}

// TestDroppedRemoteFileCannotTell: a remote sessions' file runway had to
// leave (damaged, or too big to read: issue 25's flood made it 303 MB)
// that runway serve wrote inside the lookback may hold sessions burning
// now: a warning says so and the gate cannot tell (it said "lasts", exit
// 0). One written before the lookback holds nothing that counts.
func TestDroppedRemoteFileCannotTell(t *testing.T) {
	now := time.Now().UTC()
	env := serveEnv(t, now)
	unread := func() string {
		t.Helper()
		s := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
		return strings.Join(s.Unread, "; ")
	}
	if u := unread(); u != "" {
		t.Fatalf("without a remote file: %s", u)
	}
	path := filepath.Join(env.StateDir, otlp.StoreName)
	os.WriteFile(path, []byte("runway remote 3\ntorn"), 0o600)
	s := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	if u := strings.Join(s.Unread, "; "); !strings.Contains(u, otlp.StoreName) {
		t.Errorf("a damaged remote file written now is not unread: %q", u)
	}
	if findWarning(s.Warnings, "remote sessions") == "" {
		t.Errorf("a damaged remote file: no warning in %q", s.Warnings)
	}
	// The engine beside a runway serve reads the same file.
	e := NewEngine(env, EngineOptions{Now: func() time.Time { return now }, NoNotices: true})
	e.recompute()
	if u := strings.Join(e.Latest().Unread, "; "); !strings.Contains(u, otlp.StoreName) {
		t.Errorf("the engine: a damaged remote file written now is not unread: %q", u)
	}
	old := now.Add(-7 * time.Hour)
	os.Chtimes(path, old, old)
	if u := unread(); u != "" {
		t.Errorf("a damaged remote file older than the lookback: %q", u)
	}
}

// writeBoth writes the local transcript of session "both": six responses
// in the last minute.
func writeBoth(t *testing.T, env Env, now time.Time) {
	t.Helper()
	c := &synth.Claude{SessionID: "both", Cwd: "/home/ada/src/shop", Model: "claude-opus-4-5"}
	var lines []byte
	for i := range 6 {
		at := now.Add(-time.Duration(5-i) * 10 * time.Second)
		for _, l := range c.Response(at, fmt.Sprintf("msg_%d", i), fmt.Sprintf("req_%d", i), synth.Usage{Input: 100, Output: 900, CacheRead: 10000}, 1, "tool_use") {
			lines = append(lines, l...)
		}
	}
	dir := filepath.Join(env.Roots.Claude[0], "projects", "-home-ada-src-shop")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "both.jsonl"), lines, 0o600); err != nil {
		t.Fatal(err)
	}
}

// saveRemote saves OTLP/JSON log exports as runway serve would and
// returns their events.
func saveRemote(t testing.TB, env Env, now time.Time, exports ...[]byte) []burn.Event {
	t.Helper()
	store := otlp.NewStore(6*time.Hour, burn.DefaultCacheReadWeight)
	for _, export := range exports {
		b, err := otlp.Decode(otlp.Logs, otlp.JSON, export, "127.0.0.1", burn.DefaultCacheReadWeight)
		if err != nil {
			t.Fatal(err)
		}
		store.Add(now, b)
	}
	if err := store.Save(env.StateDir); err != nil {
		t.Fatal(err)
	}
	return store.Events()
}

func TestSessionBothLocalAndRemoteCountsOnce(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	env := pressedEnv(t, now)
	// The local transcript of session "both", and its OTLP copy from the
	// same machine; plus a session only OTLP reports.
	writeBoth(t, env, now)
	saveRemote(t, env, now, remoteExport("both", "laptop", now, 6), remoteExport("far-1", "devbox", now, 6))

	s := env.Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	if len(s.Sessions) != 2 {
		t.Fatalf("%d sessions: %+v", len(s.Sessions), s.Sessions)
	}
	var both, far burn.SessionStatus
	for _, x := range s.Sessions {
		switch x.ID {
		case "both":
			both = x
		case "far-1":
			far = x
		}
	}
	if both.Host != "" || both.Project != "/home/ada/src/shop" {
		t.Errorf("the local session is its log's: %+v", both)
	}
	// Equal token streams: equal shares (the copy did not double "both").
	if far.Host != "devbox" || both.TokensPerS == 0 || math.Abs(both.TokensPerS-far.TokensPerS) > 1e-9 {
		t.Errorf("tokens/s local %v, remote %v", both.TokensPerS, far.TokensPerS)
	}
	// The remote session's share and pause impact, as now --long shows it.
	if far.QuotaMinutesPerHour <= 0 || far.PauseGainMinutes <= 0 {
		t.Errorf("remote session without a share or pause impact: %+v", far)
	}
	var row string
	for _, line := range strings.Split(text.Report(s, time.UTC), "\n") {
		if strings.Contains(line, "on devbox") {
			row = line
		}
	}
	if !strings.Contains(row, "m/h") || !strings.Contains(row, "pause →") {
		t.Errorf("now --long row of the remote session: %q\n%s", row, text.Report(s, time.UTC))
	}
}

// BenchmarkThousandRemoteSessions is what 1,000 remote sessions with 100
// responses each cost: a recompute of the engine (the model over 100,000
// events, at most once a second), and `runway now` cold with the snapshot
// stale (reading remote.json), beside a cold `runway now` without them.
func BenchmarkThousandRemoteSessions(b *testing.B) {
	now := time.Now().UTC().Truncate(time.Second)
	env, plain := serveEnv(b, now), serveEnv(b, now)
	var exports [][]byte
	for i := range 1000 {
		exports = append(exports, remoteExport(fmt.Sprintf("remote-%04d", i), fmt.Sprintf("box-%d", i%20), now, 100))
	}
	events := saveRemote(b, env, now, exports...)
	at := func() time.Time { return now }
	b.Run("recompute", func(b *testing.B) {
		for b.Loop() {
			s := env.compute(now, withRemote(tail.Usage{}, events, now), nil, nil, nil)
			if len(s.Sessions) != 1000 {
				b.Fatalf("%d sessions", len(s.Sessions))
			}
		}
	})
	b.Run("now-cold-baseline", func(b *testing.B) {
		for b.Loop() {
			plain.Evaluate(context.Background(), EvalOptions{Now: at})
		}
	})
	b.Run("now-cold", func(b *testing.B) {
		for b.Loop() {
			if s := env.Evaluate(context.Background(), EvalOptions{Now: at}).Snapshot; len(s.Sessions) != 1000 {
				b.Fatalf("%d sessions", len(s.Sessions))
			}
		}
	})
}

// TestStopCutsASlowSender: a stop asked while a sender trickles its body
// ends cleanly once the grace period is over (it ended with "context
// deadline exceeded", and runway serve exited 1).
func TestStopCutsASlowSender(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	l := startLive(t, serveEnv(t, now), now, func(o *EngineOptions) { o.Receive = true })
	srv, err := l.e.Listen(ServeOptions{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	srv.grace = time.Millisecond
	active := make(chan struct{}, 1)
	srv.srv.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateActive {
			active <- struct{}{}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	conn, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	<-active
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	l.stop()
}
