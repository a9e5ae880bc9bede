//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/longproof"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/tail"
)

// The serve end-to-end tests run the real `runway serve` (main, in a child
// process) with the real clock, feed it OpenTelemetry the way Claude Code
// exports it, and look at it only from outside: HTTP, signals, the state
// folder and `runway now`.

// serveBox is a machine's folders: no agent logs (every session is
// remote), and a sample log that says Claude's 5-hour window burns.
type serveBox struct {
	dir, home, state string
	token            string // RUNWAY_SERVE_TOKEN when set
}

func newServeBox(t *testing.T) *serveBox {
	t.Helper()
	dir := t.TempDir()
	b := &serveBox{dir: dir, home: filepath.Join(dir, "home"), state: filepath.Join(dir, "state")}
	for _, d := range []string{b.home, filepath.Join(dir, "claude"), filepath.Join(dir, "codex")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	log, err := quota.OpenLog(b.state)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var samples []burn.Sample
	for i, used := range []float64{40, 41, 42, 43, 44, 45} {
		samples = append(samples, burn.Sample{ObservedAt: now.Add(time.Duration(i-5) * 2 * time.Minute), Provider: burn.Claude,
			Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: used, ResetsAt: now.Add(2 * time.Hour), Source: burn.SourceStatusline})
	}
	if err := log.Append(samples...); err != nil {
		t.Fatal(err)
	}
	return b
}

// vars is the environment of a runway on this box, nothing of the user's.
func (b *serveBox) vars() map[string]string {
	return map[string]string{
		"HOME":                     b.home,
		"XDG_CONFIG_HOME":          filepath.Join(b.home, ".config"),
		"XDG_CACHE_HOME":           filepath.Join(b.home, ".cache"),
		"CLAUDE_CONFIG_DIR":        filepath.Join(b.dir, "claude"),
		"CODEX_HOME":               filepath.Join(b.dir, "codex"),
		"RUNWAY_STATE_DIR":         b.state,
		"RUNWAY_CLAUDE_CACHE_DIR":  filepath.Join(b.dir, "claude-cache"),
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + filepath.Join(b.dir, "no-bus"),
		"TZ":                       "UTC",
		"RUNWAY_SERVE_TOKEN":       b.token,
	}
}

func (b *serveBox) environ() []string {
	mine := b.vars()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := mine[k]; ok || strings.HasPrefix(k, "RUNWAY_") || k == "XDG_STATE_HOME" || k == "XDG_RUNTIME_DIR" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range mine {
		env = append(env, k+"="+v)
	}
	return env
}

// runway runs a one-shot command in process on this box.
func (b *serveBox) runway(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	vars := b.vars()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return vars[k] })
	return stdout.String(), stderr.String(), code
}

// sessionInNow waits until `runway now --json` on this box shows the
// session (and until, when given, holds of it); it returns the session and
// that snapshot.
func (b *serveBox) sessionInNow(t *testing.T, id string, until func(burn.SessionStatus) bool) (got burn.SessionStatus, snap burn.Snapshot) {
	t.Helper()
	eventually(t, "session "+id+" in runway now --json", func() bool {
		out, _, _ := b.runway(t, "now", "--json", "--offline")
		snap = burn.Snapshot{}
		json.Unmarshal([]byte(out), &snap)
		i := slices.IndexFunc(snap.Sessions, func(x burn.SessionStatus) bool { return x.ID == id && (until == nil || until(x)) })
		if i >= 0 {
			got = snap.Sessions[i]
		}
		return i >= 0
	})
	return got, snap
}

// served is a running `runway serve` and its address.
type served struct {
	*runwayProc
	addr string
}

var servingRE = regexp.MustCompile(`serving OTLP/HTTP and /metrics on http://(\S+)`)

func (b *serveBox) serve(t *testing.T, args ...string) *served {
	t.Helper()
	p := startProc(t, b.environ(), append([]string{"serve", "--offline"}, args...)...)
	s := &served{runwayProc: p}
	eventually(t, "runway serve to listen", func() bool {
		if m := servingRE.FindStringSubmatch(p.String()); m != nil {
			s.addr = m[1]
			return true
		}
		select {
		case <-p.exited:
			t.Fatalf("runway serve exited: %v\n%s", p.err, p.String())
		default:
		}
		return false
	})
	return s
}

// claudeExport is an OTLP/JSON logs export of one Claude Code api_request
// event, as Claude Code sends it with OTEL_RESOURCE_ATTRIBUTES=host.name=….
func claudeExport(session, host, request string, at time.Time, input, output, cacheRead int) []byte {
	return []byte(fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[
{"key":"service.name","value":{"stringValue":"claude-code"}},{"key":"host.name","value":{"stringValue":%q}}]},
"scopeLogs":[{"scope":{"name":"com.anthropic.claude_code.events"},"logRecords":[{"timeUnixNano":"%d","body":{"stringValue":"claude_code.api_request"},"attributes":[
{"key":"session.id","value":{"stringValue":%q}},{"key":"host.name","value":{"stringValue":%q}},
{"key":"event.name","value":{"stringValue":"api_request"}},{"key":"event.timestamp","value":{"stringValue":%q}},
{"key":"model","value":{"stringValue":"claude-opus-4-5"}},{"key":"input_tokens","value":{"intValue":"%d"}},
{"key":"output_tokens","value":{"intValue":"%d"}},{"key":"cache_read_tokens","value":{"intValue":"%d"}},
{"key":"cache_creation_tokens","value":{"intValue":"0"}},{"key":"request_id","value":{"stringValue":%q}}]}]}]}]}`,
		host, at.UnixNano(), session, host, at.Format(time.RFC3339Nano), input, output, cacheRead, request))
}

// feed plays a remote Claude Code session: one response a second, until
// the test ends.
func (s *served) feed(t *testing.T, session, host string) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		// The first 20 responses are stamped over the last 20 s, so the
		// session's rate is measured at once rather than after 10 s of sends.
		for i := 0; ctx.Err() == nil; i++ {
			at := time.Now().UTC().Add(-time.Duration(max(20-i, 0)) * time.Second)
			body := claudeExport(session, host, "req_"+strconv.Itoa(i), at, 50, 600, 8000)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+s.addr+"/v1/logs", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
			if i < 20 {
				continue
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
}

// export sends one OTLP/JSON logs body and wants it taken (200).
func (s *served) export(t *testing.T, body []byte) {
	t.Helper()
	resp, err := http.Post("http://"+s.addr+"/v1/logs", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export: %s", resp.Status)
	}
}

func (s *served) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + s.addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A serve that cannot save the remote sessions it holds when it stops says
// so and exits 1: runway now would not see them afterwards.
func TestServeExitsOneWhenItsLastSaveFails(t *testing.T) {
	b := newServeBox(t)
	// A folder where the store file goes: no save can replace it.
	if err := os.MkdirAll(filepath.Join(b.state, otlp.StoreName, "held"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := b.serve(t, "--listen", "127.0.0.1:0")
	s.export(t, claudeExport("remote-claude-2", "devbox", "req_1", time.Now().UTC(), 50, 600, 8000))
	if err := s.terminate(t); err == nil || !strings.Contains(s.String(), "remote sessions not saved at exit") {
		t.Errorf("exit %v:\n%s", err, s.String())
	}
}

// A serve whose terminal closes (SIGHUP: an SSH session dropped) saves
// what it took in before it goes: it died at once, and the export it had
// answered 200 was in no remote.events.
func TestServeSavesOnSIGHUP(t *testing.T) {
	b := newServeBox(t)
	s := b.serve(t, "--listen", "127.0.0.1:0")
	s.export(t, claudeExport("remote-claude-3", "devbox", "req_1", time.Now().UTC(), 50, 600, 8000))
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := s.waitExit(t); err != nil {
		t.Errorf("exit after SIGHUP: %v\n%s", err, s.String())
	}
	saved, err := otlp.ReadEvents(b.state, burn.DefaultCacheReadWeight, time.Time{})
	if err != nil || !slices.ContainsFunc(saved, func(ev burn.Event) bool { return ev.Session == "remote-claude-3" }) {
		t.Errorf("%s after SIGHUP: %v %+v", otlp.StoreName, err, saved)
	}
}

func TestServeShowsARemoteSessionAndStopsCleanlyOnSIGTERM(t *testing.T) {
	b := newServeBox(t)
	s := b.serve(t, "--listen", "127.0.0.1:0")
	s.feed(t, "remote-claude-1", "devbox")

	_, snap := b.sessionInNow(t, "remote-claude-1", func(x burn.SessionStatus) bool { return x.Host == "devbox" && x.RateKind == burn.Measured })
	if p := snap.Provider(burn.Claude); p == nil || p.ElsewhereQuotaMinutesPerHour != 0 {
		t.Errorf("elsewhere still holds the remote session's burn: %+v", p)
	}
	long, _, _ := b.runway(t, "now", "--long", "--offline")
	if !strings.Contains(long, "on devbox") {
		t.Errorf("now --long:\n%s", long)
	}

	if err := s.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	saved, err := otlp.ReadEvents(b.state, burn.DefaultCacheReadWeight, time.Time{})
	if err != nil || !slices.ContainsFunc(saved, func(ev burn.Event) bool { return ev.Host == "devbox" }) {
		t.Fatalf("%s: %v %+v", otlp.StoreName, err, saved)
	}
	// The snapshot goes stale; runway now still counts the session.
	os.Remove(filepath.Join(b.state, "snapshot.json"))
	out, _, _ := b.runway(t, "now", "--json", "--offline")
	if !strings.Contains(out, `"host": "devbox"`) {
		t.Errorf("runway now after serve stopped:\n%s", out)
	}
}

// TestServeTakesItsTokenFromTheEnvironment: beyond loopback runway serve
// will not start without a token; RUNWAY_SERVE_TOKEN is one, and asked for
// (root's TestEveryRouteIsBehindTheToken checks each route).
func TestServeTakesItsTokenFromTheEnvironment(t *testing.T) {
	b := newServeBox(t)
	_, stderr, code := b.runway(t, "serve", "--offline", "--listen", "0.0.0.0:0")
	if code != 1 || !strings.Contains(stderr, "RUNWAY_SERVE_TOKEN") || !strings.Contains(stderr, "--insecure") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	b.token = "tok3n"
	_, port, _ := net.SplitHostPort(b.serve(t, "--listen", "0.0.0.0:0").addr)
	for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer tok3n": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+port+"/metrics", nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/metrics with %q: %d, want %d", auth, resp.StatusCode, want)
		}
	}
}

// needTool finds a component a test runs; CI installs it (.ci/run), so
// there it must be present.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs it", name)
		}
		t.Skipf("%s is not installed (apt-get install prometheus)", name)
	}
	return p
}

// readmeBlock is docs/machines.md's fenced block whose first line is first:
// the recipes the docs give are the ones the tests run.
func readmeBlock(t *testing.T, first string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/machines.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+first+"\n")
	if i < 0 {
		t.Fatalf("docs/machines.md has no block starting %q", first)
	}
	body := text[i+1:]
	return body[:strings.Index(body, "```")]
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestPrometheusScrapesServe(t *testing.T) {
	longproof.Skip(t) // a real Prometheus scraping for ~17 s
	prom := needTool(t, "prometheus")
	promtool := needTool(t, "promtool")
	b := newServeBox(t)
	s := b.serve(t, "--listen", "127.0.0.1:0")
	s.feed(t, "remote-claude-2", "buildbox")
	eventually(t, "the session in /metrics", func() bool {
		return strings.Contains(s.get(t, "/metrics"), `session="remote-claude-2"`)
	})

	// promtool's lint of the exposition.
	exposition := s.get(t, "/metrics")
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(exposition)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\n%s", err, out, exposition)
	}

	// The README's scrape config and rules, pointed at this serve.
	dir := t.TempDir()
	config := readmeBlock(t, "# prometheus.yml")
	config = strings.Replace(config, `"127.0.0.1:4318"`, `"`+s.addr+`"`, 1)
	config = strings.Replace(config, "scrape_interval: 15s", "scrape_interval: 1s", 1)
	config = "global: {evaluation_interval: 1s}\n" + config
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600)
	os.WriteFile(filepath.Join(dir, "runway-rules.yml"), []byte(readmeBlock(t, "# runway-rules.yml")), 0o600)
	for _, args := range [][]string{{"check", "config", filepath.Join(dir, "prometheus.yml")}, {"check", "rules", filepath.Join(dir, "runway-rules.yml")}} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
	}
	web := freePort(t)
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus said:\n%s", logs.String())
		}
	})

	query := func(q string) []float64 {
		resp, err := http.Get("http://" + web + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
			return nil
		}
		var out []float64
		for _, x := range r.Data.Result {
			s, _ := x.Value[1].(string)
			v, _ := strconv.ParseFloat(s, 64)
			out = append(out, v)
		}
		return out
	}
	var ratio, mh []float64
	eventually(t, "the window ratio and the session's m/h in Prometheus", func() bool {
		ratio = query(`runway_window_used_ratio{provider="claude",window="5h"}`)
		mh = query(`runway_session_quota_seconds_per_second{provider="claude",session="remote-claude-2",host="buildbox"} * 60`)
		return len(ratio) == 1 && len(mh) == 1
	})
	if ratio[0] != 0.45 {
		t.Errorf("ratio %v, want 0.45", ratio[0])
	}
	if mh[0] <= 0 {
		t.Errorf("session m/h %v", mh[0])
	}
	// Both README rules load and evaluate.
	eventually(t, "the README's rules evaluated", func() bool {
		resp, err := http.Get("http://" + web + "/api/v1/rules")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Count(string(b), `"health":"ok"`) == 2
	})
}

// mockResponses answers the OpenAI Responses API as Codex streams it:
// one assistant message and a response.completed with this usage.
type mockUsage struct{ input, cached, output, reasoning int }

func mockResponses(t *testing.T, usage mockUsage) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		events := []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
			{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant", "id": "msg_1",
				"content": []any{map[string]any{"type": "output_text", "text": "Hi!"}}}},
			{"type": "response.completed", "response": map[string]any{"id": "resp_1", "usage": map[string]any{
				"input_tokens": usage.input, "input_tokens_details": map[string]any{"cached_tokens": usage.cached},
				"output_tokens": usage.output, "output_tokens_details": map[string]any{"reasoning_tokens": usage.reasoning},
				"total_tokens": usage.input + usage.output}}},
		}
		for _, ev := range events {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var codexSessionRE = regexp.MustCompile(`session id: (\S+)`)

func TestRealCodexExportsToServe(t *testing.T) {
	codex := needTool(t, "codex")
	b := newServeBox(t)
	s := b.serve(t, "--listen", "127.0.0.1:0")
	usage := mockUsage{input: 1234, cached: 1000, output: 56, reasoning: 6}
	model := mockResponses(t, usage)

	// Codex's own home, which this runway does not read: its session is
	// remote. The [otel] table is the README's, pointed at this serve.
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	otel := strings.ReplaceAll(readmeBlock(t, "[otel]"), "127.0.0.1:4318", s.addr)
	config := `model = "mock-model"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "` + model.URL + `/v1"
wire_api = "responses"

` + otel
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	run := exec.Command(codex, "exec", "--skip-git-repo-check", "say hi")
	run.Dir = work
	run.Env = append(b.environ(), "HOME="+home, "CODEX_HOME="+codexHome)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	m := codexSessionRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("codex printed no session id:\n%s", out)
	}
	session := string(m[1])
	host, _ := os.Hostname()
	// A second turn, as a user resuming the session: its codex.user_prompt
	// marks the first turn's response as the end of that turn.
	resume := exec.Command(codex, "exec", "--skip-git-repo-check", "resume", session, "again")
	resume.Dir = work
	resume.Env = run.Env
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("codex exec resume: %v\n%s", err, out)
	}
	mine := turnEnds(t, b.state, session, 2)

	got, _ := b.sessionInNow(t, session, nil)
	if got.Provider != burn.Codex || got.Host != host || got.Model != "mock-model" {
		t.Errorf("session %+v, want codex on %s with mock-model", got, host)
	}
	long, _, _ := b.runway(t, "now", "--long", "--offline")
	if !strings.Contains(long, "on "+host) {
		t.Errorf("now --long does not show the host:\n%s", long)
	}
	// The token totals are what the mock sent: once, with cached input
	// split out as the rollout reader does.
	want := burn.Tokens{Input: 2 * int64(usage.input-usage.cached), CacheRead: 2 * int64(usage.cached), Output: 2 * int64(usage.output)}
	if sum := sumTokens(mine); sum != want {
		t.Errorf("tokens %+v, want %+v", sum, want)
	}
	if strings.Contains(s.String(), "refused") {
		t.Errorf("runway refused part of Codex's export:\n%s", s.String())
	}
}

// turnEnds waits for the session's responses of two turns in the store
// runway serve saved and checks that the first turn's last response is
// read as the end of its turn (the second turn's user prompt, exported by
// the agent, says so) and the second turn's last is not (no prompt
// followed it); it returns those responses.
func turnEnds(t *testing.T, state, session string, responses int) []burn.Event {
	t.Helper()
	var mine []burn.Event
	ends := 0
	eventually(t, "the session's responses and prompts in "+otlp.StoreName, func() bool {
		events, _ := otlp.ReadEvents(state, burn.DefaultCacheReadWeight, time.Time{})
		mine, ends = mine[:0], 0
		for _, ev := range events {
			if ev.Session == session {
				mine = append(mine, ev)
				if ev.EndsTurn {
					ends++
				}
			}
		}
		return len(mine) >= responses && ends >= 1
	})
	if last := mine[len(mine)-1]; last.EndsTurn || ends != 1 {
		t.Errorf("%d responses, %d marked as ending a turn, the last one %v: want one, the first turn's last", len(mine), ends, last.EndsTurn)
	}
	return mine
}

func sumTokens(events []burn.Event) burn.Tokens {
	var sum burn.Tokens
	for _, ev := range events {
		sum.Input += ev.Tokens.Input
		sum.Output += ev.Tokens.Output
		sum.CacheCreation += ev.Tokens.CacheCreation
		sum.CacheRead += ev.Tokens.CacheRead
	}
	return sum
}

// mockMessages answers the Anthropic Messages API as Claude Code streams
// it, each response with this usage and its own request-id; it counts the
// responses it gave.
type mockMessages struct {
	*httptest.Server
	mu        sync.Mutex
	responses int
}

func newMockMessages(t *testing.T, usage burn.Tokens) *mockMessages {
	t.Helper()
	m := &mockMessages{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		m.mu.Lock()
		m.responses++
		n := m.responses
		m.mu.Unlock()
		w.Header().Set("request-id", fmt.Sprintf("req_mock_%d", n))
		u := map[string]any{"input_tokens": usage.Input, "cache_creation_input_tokens": usage.CacheCreation,
			"cache_read_input_tokens": usage.CacheRead, "output_tokens": usage.Output}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant",
				"model": req.Model, "content": []any{map[string]any{"type": "text", "text": "Hi!"}}, "stop_reason": "end_turn", "usage": u})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		start := map[string]any{"input_tokens": usage.Input, "cache_creation_input_tokens": usage.CacheCreation,
			"cache_read_input_tokens": usage.CacheRead, "output_tokens": 1}
		for _, ev := range []map[string]any{
			{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant",
				"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start}},
			{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}},
			{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Hi!"}},
			{"type": "content_block_stop", "index": 0},
			{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": usage.Output}},
			{"type": "message_stop"},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	}))
	t.Cleanup(m.Close)
	return m
}

// readmeEnv is the README's Claude Code environment lines as variables,
// $(hostname) expanded.
func readmeEnv(t *testing.T, host string) []string {
	t.Helper()
	var env []string
	for _, line := range strings.Split(readmeBlock(t, "export CLAUDE_CODE_ENABLE_TELEMETRY=1"), "\n") {
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(strings.ReplaceAll(rest, "$(hostname)", host)) {
			k, v, _ := strings.Cut(kv, "=")
			env = append(env, k+"="+strings.Trim(v, `"`))
		}
	}
	if len(env) < 5 {
		t.Fatalf("README's Claude Code lines: %q", env)
	}
	return env
}

func TestRealClaudeCodeExportsToServe(t *testing.T) {
	claude := needTool(t, "claude")
	b := newServeBox(t)
	s := b.serve(t, "--listen", "127.0.0.1:0")
	usage := burn.Tokens{Input: 12, Output: 800, CacheCreation: 1500, CacheRead: 20000}
	api := newMockMessages(t, usage)
	host, _ := os.Hostname()

	// Claude Code's own folder, which this runway does not read: the
	// session is remote. A subscription-shaped login (an OAuth token), the
	// API on loopback, and the README's telemetry lines.
	home := t.TempDir()
	env := append(b.environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL="+api.URL, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-runway-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	for _, kv := range readmeEnv(t, host) {
		env = append(env, strings.ReplaceAll(kv, "127.0.0.1:4318", s.addr))
	}
	run := exec.Command(claude, "-p", "say hi", "--output-format", "json")
	run.Dir = t.TempDir()
	run.Env = env
	out, err := run.Output()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	var result struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(out, &result); err != nil || result.SessionID == "" {
		t.Fatalf("claude printed no session id: %v\n%s", err, out)
	}
	// A second turn, as a user resuming the session: its user_prompt
	// event marks the first turn's response as the end of that turn.
	resume := exec.Command(claude, "-p", "again", "--resume", result.SessionID, "--output-format", "json")
	resume.Dir = run.Dir
	resume.Env = env
	if out, err := resume.Output(); err != nil {
		t.Fatalf("claude -p --resume: %v\n%s", err, out)
	}
	api.mu.Lock()
	responses := api.responses
	api.mu.Unlock()
	mine := turnEnds(t, b.state, result.SessionID, responses)
	if responses == 0 {
		t.Fatal("Claude Code never asked the mock")
	}
	// The transcript Claude Code wrote: its last response, which the API
	// ended with end_turn, is read as the one that ended the turn (a long
	// gap after it is the user away: burn.Config.BurstGapAfterTurn).
	tr := tail.New(tail.Options{Roots: tail.Roots{Claude: []string{filepath.Join(home, ".claude")}}, CacheReadWeight: 0.1, Lookback: time.Hour})
	tr.Scan(time.Now())
	var last burn.Event
	for _, ev := range tr.Usage(time.Time{}).Events {
		if ev.Session == result.SessionID && !ev.At.Before(last.At) {
			last = ev
		}
	}
	if last.Session == "" || !last.EndsTurn {
		t.Errorf("the transcript's last response %+v: want it read as the end of the turn", last)
	}

	got, _ := b.sessionInNow(t, result.SessionID, nil)
	if got.Provider != burn.Claude || got.Host != host || !strings.HasPrefix(got.Model, "claude-") {
		t.Errorf("session %+v, want claude on %s", got, host)
	}
	metrics := s.get(t, "/metrics")
	if !strings.Contains(metrics, `runway_otlp_requests_total{outcome="ok",signal="logs"}`) {
		t.Errorf("no logs export counted:\n%s", metrics)
	}
	// Every response once, from the api_request events (the token.usage
	// metric Claude Code also sends is the same usage: not counted again).
	r := int64(responses)
	want := burn.Tokens{Input: usage.Input * r, Output: usage.Output * r, CacheCreation: usage.CacheCreation * r, CacheRead: usage.CacheRead * r}
	if sum := sumTokens(mine); len(mine) != responses || sum != want {
		t.Errorf("%d events with %+v, want %d responses with %+v", len(mine), sum, responses, want)
	}
}
