package quota

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentrunway/runway/burn"
)

// secret is as long as a real access token (108 characters), so a text
// cut to a length cuts it too.
const secret = "sk-ant-oat01-SECRET-0123456789abcdefABCDEF_-xyz0123456789abcdefABCDEF_-xyz0123456789abcdefABCDEF_-xyzABCDEFGHI"

// claudeEnv is a home with a Claude login, runway state, a shared cache
// folder, and a fake usage endpoint.
type claudeEnv struct {
	t       *testing.T
	c       *ClaudeSources
	clk     *clock
	config  string
	hits    atomic.Int32
	mu      sync.Mutex
	handler http.HandlerFunc
	headers []http.Header
}

// newClaude builds the environment; the clock starts at the real time so
// file times (the shared cache's mtime) and the clock agree.
func newClaude(t *testing.T, handler http.HandlerFunc) *claudeEnv {
	t.Helper()
	root := t.TempDir()
	e := &claudeEnv{t: t, clk: newClock(time.Now().Truncate(time.Second)), config: filepath.Join(root, ".claude"), handler: handler}
	if err := os.Mkdir(e.config, 0o700); err != nil {
		t.Fatal(err)
	}
	e.login(secret, e.clk.Now().Add(8*time.Hour))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.hits.Add(1)
		e.mu.Lock()
		e.headers = append(e.headers, r.Header.Clone())
		h := e.handler
		e.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	e.c = &ClaudeSources{
		ConfigDirs: []string{e.config},
		Home:       root,
		CacheDir:   filepath.Join(root, "tmp-claude"),
		StateDir:   filepath.Join(root, "state"),
		Client:     srv.Client(),
		Endpoint:   srv.URL + "/api/oauth/usage",
		Now:        e.clk.Now,
	}
	return e
}

func (e *claudeEnv) setHandler(h http.HandlerFunc) {
	e.mu.Lock()
	e.handler = h
	e.mu.Unlock()
}

// login writes Claude Code's credentials file.
func (e *claudeEnv) login(token string, expires time.Time) {
	body := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":"sk-ant-ort01-REFRESH","expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`,
		token, expires.UnixMilli())
	if err := os.WriteFile(filepath.Join(e.config, ".credentials.json"), []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// poll runs Poll and returns the samples and the state of the named source.
func (e *claudeEnv) poll(active bool, name string) ([]burn.Sample, SourceState) {
	e.t.Helper()
	samples, states := e.c.Poll(context.Background(), active)
	for _, st := range states {
		if st.Name == name {
			return samples, st
		}
	}
	e.t.Fatalf("no state for %s in %+v", name, states)
	return nil, SourceState{}
}

func (e *claudeEnv) wantHits(n int32) {
	e.t.Helper()
	if got := e.hits.Load(); got != n {
		e.t.Fatalf("endpoint called %d times, want %d", got, n)
	}
}

func serve(status int, contentType string, body []byte, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.Write(body)
	}
}

// serveUsage answers 200 with a recorded usage body.
func serveUsage(t *testing.T, file string) http.HandlerFunc {
	return serve(200, "application/json", usageFile(t, file))
}

func notMine(fs.FileInfo) bool { return false }

func TestOAuthSuccessWritesSharedCache(t *testing.T) {
	body := usageFile(t, "windows.json")
	e := newClaude(t, serve(200, "application/json", body))
	start := e.clk.Now()
	samples, st := e.poll(true, NameOAuth)
	e.wantHits(1)
	if st.State != StateOK || !st.NextTry.Equal(start.Add(ActiveInterval)) {
		t.Fatalf("state = %+v", st)
	}
	if len(samples) != 2 || samples[0].Source != burn.SourceOAuth || samples[0].UsedPercent != 37 ||
		samples[1].Window != burn.Weekly || !samples[0].ObservedAt.Equal(start) {
		t.Fatalf("samples = %+v", samples)
	}
	h := e.headers[0]
	if h.Get("Authorization") != "Bearer "+secret || h.Get("anthropic-beta") != "oauth-2025-04-20" ||
		!strings.HasPrefix(h.Get("User-Agent"), "claude-code/") {
		t.Fatalf("request headers = %v", h)
	}

	// The shared cache now holds the body, private to us.
	path := filepath.Join(e.c.CacheDir, cacheName)
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("shared cache = %q, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		for p, mode := range map[string]fs.FileMode{path: 0o600, e.c.CacheDir: 0o700} {
			if fi, _ := os.Stat(p); fi.Mode().Perm() != mode {
				t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
			}
		}
	}

	// Cache-first: the fresh cache serves the next poll.
	e.clk.Add(ActiveInterval + time.Second)
	samples, st = e.poll(true, NameOAuth)
	e.wantHits(1)
	if st.State != StatePaced || !strings.Contains(st.Detail, NameCache) {
		t.Fatalf("state with a fresh cache = %+v", st)
	}
	if len(samples) != 2 || samples[0].Source != burn.SourceOAuthCache {
		t.Fatalf("samples from the cache = %+v", samples)
	}
	// Once the cache is stale, the endpoint again.
	e.clk.Add(Fresh)
	e.poll(true, NameOAuth)
	e.wantHits(2)
}

func TestOAuthPacing(t *testing.T) {
	e := newClaude(t, serveUsage(t, "windows.json"))
	e.c.OwnedByMe = notMine // no shared cache: pacing alone decides
	start := e.clk.Now()
	e.poll(true, NameOAuth)
	e.wantHits(1)

	e.clk.Add(30 * time.Second)
	samples, st := e.poll(true, NameOAuth)
	e.wantHits(1)
	if st.State != StatePaced || !st.NextTry.Equal(start.Add(ActiveInterval)) || len(samples) != 0 {
		t.Fatalf("30 s later: %+v %+v", st, samples)
	}
	e.clk.Add(30 * time.Second)
	e.poll(true, NameOAuth)
	e.wantHits(2)

	// No Claude session: much rarer.
	e.clk.Add(5 * time.Minute)
	e.poll(false, NameOAuth)
	e.wantHits(2)
	e.clk.Add(IdleInterval)
	e.poll(false, NameOAuth)
	e.wantHits(3)

	// Another process (a one-shot `runway now`) shares the budget.
	other := &ClaudeSources{ConfigDirs: e.c.ConfigDirs, Home: e.c.Home, CacheDir: e.c.CacheDir, StateDir: e.c.StateDir,
		Client: e.c.Client, Endpoint: e.c.Endpoint, Now: e.c.Now, OwnedByMe: notMine}
	e.clk.Add(30 * time.Second)
	if _, states := other.Poll(context.Background(), true); states[3].State != StatePaced {
		t.Fatalf("other process: %+v", states[3])
	}
	e.wantHits(3)

	// A fresh statusline sample in the log means no call.
	l, _ := OpenLog(e.c.StateDir)
	e.clk.Add(10 * time.Minute)
	l.Append(claude5h(e.clk.Now().Add(-20*time.Second), 40, burn.SourceStatusline))
	_, states := e.c.Poll(context.Background(), true)
	e.wantHits(3)
	if states[0].State != StateOK || states[3].State != StatePaced || !strings.Contains(states[3].Detail, NameStatusline) {
		t.Fatalf("with a fresh statusline: %+v", states)
	}
}

func TestOAuth429(t *testing.T) {
	cases := []struct {
		retryAfter func(now time.Time) string
		wait       time.Duration
	}{
		{func(time.Time) string { return "0" }, 300 * time.Second},
		{func(time.Time) string { return "" }, 300 * time.Second},
		{func(time.Time) string { return "-5" }, 300 * time.Second},
		{func(time.Time) string { return "900" }, 900 * time.Second},
		{func(time.Time) string { return "7200" }, time.Hour},
		{func(time.Time) string { return "99999999999999999999" }, time.Hour},
		{func(now time.Time) string { return now.Add(10 * time.Minute).UTC().Format(http.TimeFormat) }, 10 * time.Minute},
		{func(now time.Time) string { return now.Add(-time.Hour).UTC().Format(http.TimeFormat) }, 300 * time.Second},
	}
	for _, tc := range cases {
		e := newClaude(t, nil)
		e.c.OwnedByMe = notMine
		start := e.clk.Now()
		e.setHandler(serve(429, "application/json", usageFile(t, "error-429.json"), "Retry-After", tc.retryAfter(start)))
		_, st := e.poll(true, NameOAuth)
		e.wantHits(1)
		if st.State != StateBackoff || !st.NextTry.Equal(start.Add(tc.wait)) {
			t.Fatalf("Retry-After %q: %+v, want next try in %v", tc.retryAfter(start), st, tc.wait)
		}
		e.clk.Add(tc.wait - time.Second)
		_, st = e.poll(true, NameOAuth)
		e.wantHits(1)
		if st.State != StateBackoff {
			t.Fatalf("during the back-off: %+v", st)
		}
		e.setHandler(serveUsage(t, "windows.json"))
		e.clk.Add(time.Second)
		if _, st = e.poll(true, NameOAuth); st.State != StateOK {
			t.Fatalf("after the back-off: %+v", st)
		}
		e.wantHits(2)
	}
}

func TestOAuth401(t *testing.T) {
	e := newClaude(t, serve(401, "application/json", usageFile(t, "error-401.json")))
	e.c.OwnedByMe = notMine
	_, st := e.poll(true, NameOAuth)
	e.wantHits(1) // the re-read found the same token: no second call
	if st.State != StateLoggedOut || st.Fix != fixLogin || !strings.Contains(st.Detail, fingerprint(secret)) {
		t.Fatalf("state = %+v", st)
	}
	// Lasting: the refused token is not tried again, by any process.
	e.clk.Add(10 * time.Minute)
	_, st = e.poll(true, NameOAuth)
	e.wantHits(1)
	if st.State != StateLoggedOut {
		t.Fatalf("state = %+v", st)
	}
	// Claude Code refreshes its login: recovered by itself.
	e.login("sk-ant-oat01-NEW-token", e.clk.Now().Add(8*time.Hour))
	e.setHandler(serveUsage(t, "windows.json"))
	e.clk.Add(ActiveInterval)
	if _, st = e.poll(true, NameOAuth); st.State != StateOK {
		t.Fatalf("after a new login: %+v", st)
	}
	e.wantHits(2)
}

func TestOAuth401ThenRefreshedToken(t *testing.T) {
	e := newClaude(t, nil)
	e.setHandler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+secret {
			// Claude Code rotated the token meanwhile.
			e.login("sk-ant-oat01-ROTATED-token-2", e.clk.Now().Add(8*time.Hour))
			serve(401, "application/json", usageFile(t, "error-401.json"))(w, r)
			return
		}
		serveUsage(t, "windows.json")(w, r)
	})
	_, st := e.poll(true, NameOAuth)
	e.wantHits(2)
	if st.State != StateOK {
		t.Fatalf("state = %+v", st)
	}
}

func TestOAuthExpiredToken(t *testing.T) {
	e := newClaude(t, serveUsage(t, "windows.json"))
	e.c.OwnedByMe = notMine
	e.login(secret, e.clk.Now().Add(-time.Hour))
	_, st := e.poll(true, NameOAuth)
	e.wantHits(0)
	if st.State != StateLoggedOut || st.Fix != fixLogin || !strings.Contains(st.Detail, "expired") {
		t.Fatalf("state = %+v", st)
	}
	e.clk.Add(ActiveInterval)
	e.poll(true, NameOAuth)
	e.wantHits(0)
	e.login(secret+"-refreshed", e.clk.Now().Add(time.Hour))
	e.clk.Add(ActiveInterval)
	if _, st = e.poll(true, NameOAuth); st.State != StateOK {
		t.Fatalf("after refresh: %+v", st)
	}
	e.wantHits(1)
}

// TestOAuthNotCalled: offline, without a login, or without a pacing record
// (every process would call) the endpoint is not called, and says why.
func TestOAuthNotCalled(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(e *claudeEnv)
		state State
	}{
		{"offline", func(e *claudeEnv) { e.c.Offline = true }, StateOff},
		{"no login", func(e *claudeEnv) {
			os.Remove(filepath.Join(e.config, ".credentials.json"))
			e.c.Keychain = func(context.Context, string) ([]byte, error) { return nil, errNoKeychainItem }
		}, StateMissing},
		{"no pacing record", func(e *claudeEnv) { os.WriteFile(e.c.StateDir, nil, 0o600) }, StateError}, // a file where the folder should be
	} {
		e := newClaude(t, serveUsage(t, "windows.json"))
		tc.setup(e)
		_, st := e.poll(true, NameOAuth)
		e.wantHits(0)
		if st.State != tc.state || (st.Fix == "") != (tc.state == StateOff) {
			t.Errorf("%s: state = %+v", tc.name, st)
		}
		if _, err := os.Stat(e.c.CacheDir); err == nil {
			t.Errorf("%s: made the shared cache", tc.name)
		}
	}
}

func TestOAuthKeychain(t *testing.T) {
	e := newClaude(t, serveUsage(t, "windows.json"))
	os.Remove(filepath.Join(e.config, ".credentials.json"))
	var services []string
	e.c.Keychain = func(_ context.Context, service string) ([]byte, error) {
		services = append(services, service)
		return []byte(fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"expiresAt":%d}}`, secret, e.clk.Now().Add(time.Hour).UnixMilli())), nil
	}
	if _, st := e.poll(true, NameOAuth); st.State != StateOK {
		t.Fatalf("state = %+v", st)
	}
	if len(services) != 1 || services[0] != "Claude Code-credentials" {
		t.Fatalf("services = %q", services)
	}
	// A config folder other than ~/.claude (CLAUDE_CONFIG_DIR) has its own
	// item: the first 8 hex digits of the folder's SHA-256.
	if got := keychainServiceFor("/work/claude-b", e.c.Home); got != "Claude Code-credentials-"+sha8("/work/claude-b") {
		t.Fatalf("suffixed service = %q", got)
	}
	// Read once, not on every call.
	e.clk.Add(Fresh + time.Second)
	e.poll(true, NameOAuth)
	if len(services) != 1 {
		t.Fatalf("keychain read %d times", len(services))
	}
}

func TestOAuthServerFailures(t *testing.T) {
	cases := []struct {
		name    string
		h       http.HandlerFunc
		state   State
		mention string
	}{
		{"500", serve(500, "application/json", []byte(`{"error":{"type":"api_error","message":"Internal server error"}}`)), StateBackoff, "api_error"},
		{"garbage", serve(200, "application/json", []byte("\x00\xffnot json at all")), StateError, "not a usage body"},
		{"html", serve(200, "text/html; charset=utf-8", usageFile(t, "html.html")), StateError, "text/html"},
		{"no window", serve(200, "application/json", usageFile(t, "no-window.json")), StateError, "no window"},
		{"502 html", serve(502, "text/html", usageFile(t, "html.html")), StateBackoff, "502"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newClaude(t, tc.h)
			e.c.OwnedByMe = notMine
			start := e.clk.Now()
			samples, st := e.poll(true, NameOAuth)
			if st.State != tc.state || !strings.Contains(st.Detail, tc.mention) || len(samples) != 0 {
				t.Fatalf("%+v %+v", st, samples)
			}
			if !st.NextTry.Equal(start.Add(5 * time.Minute)) {
				t.Fatalf("next try %v, want in 5 min", st.NextTry)
			}
			// Failing again doubles the pause.
			at := e.clk.Add(5 * time.Minute)
			_, st = e.poll(true, NameOAuth)
			e.wantHits(2)
			if !st.NextTry.Equal(at.Add(10 * time.Minute)) {
				t.Fatalf("second failure: next try %v, want in 10 min", st.NextTry)
			}
			if _, err := os.Stat(filepath.Join(e.c.CacheDir, cacheName)); err == nil {
				t.Fatal("a failed answer was written to the shared cache")
			}
		})
	}
}

// TestOAuthSlowBody: an endpoint that sends headers and then nothing is cut
// by the call's timeout.
func TestOAuthSlowBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		config := filepath.Join(dir, ".claude")
		os.Mkdir(config, 0o700)
		os.WriteFile(filepath.Join(config, ".credentials.json"),
			[]byte(fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"expiresAt":%d}}`, secret, time.Now().Add(time.Hour).UnixMilli())), 0o600)
		c := &ClaudeSources{
			ConfigDirs: []string{config}, Home: dir, CacheDir: filepath.Join(dir, "c"), StateDir: filepath.Join(dir, "s"),
			Client: &http.Client{Transport: stalled{}},
		}
		start := time.Now()
		_, states := c.Poll(context.Background(), true)
		st := states[3]
		if st.State != StateError || !strings.Contains(st.Detail, "deadline") {
			t.Fatalf("state = %+v", st)
		}
		if waited := time.Since(start); waited != callTimeout {
			t.Fatalf("gave up after %v, want %v", waited, callTimeout)
		}
	})
}

// stalled answers 200 and then never sends the body.
type stalled struct{}

func (stalled) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: stalledBody{r.Context()}, Request: r}, nil
}

type stalledBody struct{ ctx context.Context }

func (b stalledBody) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (stalledBody) Close() error { return nil }

// TestTokenNeverLeaks drives every failure path with endpoints that echo
// the token back, and looks for it in every state and state file.
func TestTokenNeverLeaks(t *testing.T) {
	echo := func(status int, ct string, tmpl string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("Content-Type", ct+tok)
			w.Header().Set("X-Echo", tok)
			w.WriteHeader(status)
			io.WriteString(w, strings.ReplaceAll(tmpl, "TOKEN", tok))
		}
	}
	handlers := map[string]http.HandlerFunc{
		"401":          echo(401, "application/json;x=", `{"error":{"type":"TOKEN","message":"bad token TOKEN"}}`),
		"403":          echo(403, "application/json;x=", `{"error":{"type":"permission_error","message":"TOKEN"}}`),
		"429":          echo(429, "application/json;x=", `{"error":{"type":"TOKEN"}}`),
		"500":          echo(500, "application/json;x=", `{"error":{"type":"TOKEN"}}`),
		"garbage":      echo(200, "text/plain;x=", `TOKEN TOKEN`),
		"html":         echo(200, "text/html;x=", `<html>TOKEN</html>`),
		"json error":   echo(200, "application/json;x=", `{"error":{"type":"TOKEN"}}`),
		"window error": echo(200, "application/json;x=", `{"five_hour":"TOKEN"}`),
		// The token as the media type itself, and an error type that
		// starts with it: the texts that are cut short.
		"content type": echo(500, "application/", `{}`),
		"long type":    echo(500, "application/json", `{"error":{"type":"TOKEN TOKEN"}}`),
		"type on 200":  echo(200, "x/", `{"error":{"type":"x TOKEN"}}`),
	}
	var texts []string
	for name, h := range handlers {
		e := newClaude(t, h)
		e.c.OwnedByMe = notMine
		for range 3 {
			_, states := e.c.Poll(context.Background(), true)
			texts = append(texts, name+fmt.Sprintf(" %+v", states))
			e.clk.Add(time.Hour + time.Minute)
		}
		files, _ := filepath.Glob(filepath.Join(e.c.StateDir, "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			texts = append(texts, name+" "+f+": "+string(b))
		}
	}
	// No endpoint at all, and an expired token.
	e := newClaude(t, nil)
	e.c.Endpoint = "http://127.0.0.1:1/api/oauth/usage"
	_, states := e.c.Poll(context.Background(), true)
	texts = append(texts, fmt.Sprintf("refused %+v", states))
	e.login(secret, e.clk.Now().Add(-time.Minute))
	e.clk.Add(time.Hour)
	_, states = e.c.Poll(context.Background(), true)
	texts = append(texts, fmt.Sprintf("expired %+v", states))
	// A token a header cannot carry.
	e.clk.Add(time.Hour)
	e.login(secret+"\n", e.clk.Now().Add(time.Hour))
	_, states = e.c.Poll(context.Background(), true)
	texts = append(texts, fmt.Sprintf("bad token %+v", states))

	if testing.Verbose() {
		for _, text := range texts {
			t.Log(text)
		}
	}
	for _, text := range texts {
		if piece := leaked(text, secret); piece != "" {
			t.Fatalf("token leaked (%q): %s", piece, text)
		}
	}
	if !strings.Contains(strings.Join(texts, "\n"), fingerprint(secret)) {
		t.Fatal("no state names the token by its fingerprint")
	}
}

// leaked is the first 8-character piece of secret in text, in any case: a
// cut or lowercased token still gives most of it away.
func leaked(text, secret string) string {
	text, lower := strings.ToLower(text), strings.ToLower(secret)
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(text, lower[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

func sha8(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:8]
}

func TestLoginNamesTheTokenByFingerprintOnly(t *testing.T) {
	e := newClaude(t, nil)
	os.Remove(filepath.Join(e.config, ".credentials.json"))
	e.c.Keychain = func(context.Context, string) ([]byte, error) { return nil, errNoKeychain }
	if st := e.c.Login(t.Context()); st.State != StateMissing {
		t.Fatalf("no credentials: %+v", st)
	}
	e.login(secret, e.clk.Now().Add(3*time.Hour))
	st := e.c.Login(t.Context())
	if st.State != StateOK || !strings.Contains(st.Detail, "expires in 3h0m0s") || leaked(fmt.Sprint(st), secret) != "" {
		t.Fatalf("valid login: %+v", st)
	}
	e.login(secret, e.clk.Now().Add(-time.Hour))
	st = e.c.Login(t.Context())
	if st.State != StateLoggedOut || st.Fix != fixLogin || leaked(fmt.Sprint(st), secret) != "" {
		t.Fatalf("expired login: %+v", st)
	}
}

// A 200 without a usable window is no data: as a success it went to the
// shared cache, fresh for 180 s to every process.
func TestOAuth200WithoutWindowIsNoData(t *testing.T) {
	for _, body := range []string{
		`{"five_hour":null,"seven_day":null}`,
		`{"five_hour":{"utilization":"high"},"seven_day":{"utilization":250}}`,
		`{"limits":[{"kind":"weekly_opus","percent":3}]}`,
	} {
		e := newClaude(t, serve(200, "application/json", []byte(body)))
		samples, st := e.poll(true, NameOAuth)
		if len(samples) != 0 || st.State == StateOK {
			t.Errorf("%s: state %+v, samples %+v", body, st, samples)
		}
		if _, err := os.Stat(filepath.Join(e.c.CacheDir, cacheName)); err == nil {
			t.Errorf("%s: written to the shared cache", body)
		}
	}
}

// Subscribed is the plan login's signal the gate trusts: a claude.ai login's
// claudeAiOauth naming a plan, read from the file only.
func TestSubscribed(t *testing.T) {
	for _, c := range []struct {
		name, creds string
		want        bool
	}{
		{"max", `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-x","refreshToken":"r","expiresAt":1,"scopes":["user:inference"],"subscriptionType":"max","rateLimitTier":"default_claude_max_20x"}}`, true},
		{"plan unknown", `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-x","refreshToken":"r","expiresAt":1,"scopes":["user:inference"],"subscriptionType":null}}`, false},
		{"no login", `{}`, false},
		{"damaged", `{"claudeAiOauth":{"subscriptionType":"max"`, false},
		{"no file", "", false},
	} {
		dir := t.TempDir()
		if c.creds != "" {
			if err := os.WriteFile(filepath.Join(dir, ".credentials.json"), []byte(c.creds), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if got := Subscribed(dir); got != c.want {
			t.Errorf("%s: Subscribed = %v, want %v", c.name, got, c.want)
		}
	}
}
