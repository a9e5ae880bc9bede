// Package codextest runs the real `codex app-server` (npm @openai/codex)
// logged in with a ChatGPT account whose usage back end is an httptest
// server the test steers: it answers the windows, 429, 401, 403, or hangs.
//
// The app-server reads `chatgpt_base_url` from $CODEX_HOME/config.toml and
// calls {chatgpt_base_url}/wham/usage with the login's access token and
// account id; `openai_base_url` keeps its model list local too. The login's
// id_token is parsed, not verified: it only has to look like a JWT.
package codextest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Modes of the back end's usage answer.
const (
	OK        = "ok"        // 200 with the windows
	Busy      = "429"       // 429 Too Many Requests
	Expired   = "401"       // 401 Unauthorized: the login expired
	Forbidden = "403"       // 403 Forbidden: the login was revoked
	Hang      = "hang"      // never answers
	AccessKey = "access-1b" // the access token of the login LoggedIn writes
	AccountID = "acct-7e57" // its ChatGPT account id
)

// Binary is the real codex executable: $RUNWAY_TEST_CODEX, else codex on
// $PATH. Without it the test skips, except under CI=true, where it fails
// (.ci/run installs @openai/codex).
func Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv("RUNWAY_TEST_CODEX")
	if path == "" {
		path, _ = exec.LookPath("codex")
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("codex is not on PATH; CI installs @openai/codex")
		}
		t.Skip("codex is not on PATH (set RUNWAY_TEST_CODEX, or npm install @openai/codex)")
	}
	return path
}

// Backend is a ChatGPT usage back end.
type Backend struct {
	*httptest.Server

	mu       sync.Mutex
	mode     string
	used     [2]float64 // the 5-hour and weekly windows' percent
	resets   [2]time.Time
	calls    atomic.Int64 // usage requests, answered or not
	badAuth  atomic.Int64 // usage requests without the login's token or account
	released chan struct{}
}

// NewBackend starts a back end answering OK with 37 % and 12 %, resets
// two hours and three days from now; it is closed at cleanup.
func NewBackend(t testing.TB) *Backend {
	now := time.Now().Truncate(time.Second)
	b := &Backend{mode: OK, used: [2]float64{37, 12}, resets: [2]time.Time{now.Add(2 * time.Hour), now.Add(72 * time.Hour)},
		released: make(chan struct{})}
	b.Server = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.Server.Close)
	// Before Close, which waits for the hanging handlers.
	t.Cleanup(func() { close(b.released) })
	return b
}

// Set changes the answer.
func (b *Backend) Set(mode string) {
	b.mu.Lock()
	b.mode = mode
	b.mu.Unlock()
}

// SetWindows changes the percents and resets answered in OK mode.
func (b *Backend) SetWindows(used5h, usedWeek float64, reset5h, resetWeek time.Time) {
	b.mu.Lock()
	b.used = [2]float64{used5h, usedWeek}
	b.resets = [2]time.Time{reset5h, resetWeek}
	b.mu.Unlock()
}

// Resets are the windows' resets answered in OK mode.
func (b *Backend) Resets() (time.Time, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.resets[0], b.resets[1]
}

// Calls is how many usage requests arrived.
func (b *Backend) Calls() int64 { return b.calls.Load() }

// BadAuth is how many usage requests lacked the login's credentials.
func (b *Backend) BadAuth() int64 { return b.badAuth.Load() }

func (b *Backend) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/wham/usage") {
		// Plugins, model list, account checks: nothing to offer.
		http.NotFound(w, r)
		return
	}
	b.calls.Add(1)
	if r.Header.Get("Authorization") != "Bearer "+AccessKey || r.Header.Get("ChatGPT-Account-Id") != AccountID {
		b.badAuth.Add(1)
	}
	b.mu.Lock()
	mode, used, resets := b.mode, b.used, b.resets
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch mode {
	case Hang:
		select {
		case <-r.Context().Done():
		case <-b.released:
		}
		return
	case Busy:
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"detail":"Too many requests"}`)
		return
	case Expired:
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"detail":"Your authentication token has expired. Please try signing in again."}`)
		return
	case Forbidden:
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"detail":"Forbidden"}`)
		return
	}
	window := func(used float64, seconds int64, reset time.Time) map[string]any {
		return map[string]any{"used_percent": used, "limit_window_seconds": seconds,
			"reset_after_seconds": max(0, int64(time.Until(reset).Seconds())), "reset_at": reset.Unix()}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"plan_type": "plus",
		"rate_limit": map[string]any{
			"allowed": true, "limit_reached": false,
			"primary_window":   window(used[0], 5*3600, resets[0]),
			"secondary_window": window(used[1], 7*24*3600, resets[1]),
		},
	})
}

// LoggedIn writes a CODEX_HOME in dir logged in with a ChatGPT account
// whose back end is b, and returns it.
func LoggedIn(t testing.TB, dir string, b *Backend) string {
	t.Helper()
	seg := func(v any) string {
		j, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	idToken := seg(map[string]any{"alg": "none", "typ": "JWT"}) + "." + seg(map[string]any{
		"email": "dev@example.com",
		"exp":   time.Now().Add(24 * time.Hour).Unix(),
		"https://api.openai.com/auth": map[string]any{
			"chatgpt_plan_type": "plus", "chatgpt_account_id": AccountID, "chatgpt_user_id": "user-7e57",
		},
	}) + ".unsigned"
	auth, _ := json.Marshal(map[string]any{
		"OPENAI_API_KEY": nil,
		"tokens": map[string]any{"id_token": idToken, "access_token": AccessKey,
			"refresh_token": "refresh-7e57", "account_id": AccountID},
		"last_refresh": time.Now().UTC().Format(time.RFC3339),
	})
	config := fmt.Sprintf("chatgpt_base_url = %q\nopenai_base_url = %q\n", b.URL+"/backend-api/", b.URL+"/v1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"auth.json": auth, "config.toml": []byte(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Env is the environment for a codex child (or a runway that starts one):
// runway's own without the developer's homes and keys, with these.
func Env(home, codexHome string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "CODEX_HOME", "OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "CODEX_HOME="+codexHome)
}
