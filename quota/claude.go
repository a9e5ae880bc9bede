package quota

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentrunway/runway/burn"
)

// The Claude usage endpoint (docs/formats.md, "Usage endpoint").
const (
	DefaultEndpoint = "https://api.anthropic.com/api/oauth/usage"
	// ClaudeCodeVersion goes into the User-Agent: the endpoint is reported
	// to hold generic agents in 429s.
	ClaudeCodeVersion = "2.1.328"
	oauthBeta         = "oauth-2025-04-20"

	// The shortest time between two live calls across every runway process,
	// while a Claude session is active and while none is.
	ActiveInterval = 60 * time.Second
	IdleInterval   = 15 * time.Minute

	callTimeout = 15 * time.Second
	maxBody     = 1 << 20
	minRetry    = 300 * time.Second // a 429's Retry-After is often 0
	maxRetry    = time.Hour
	// keychainReread paces reading an expired Keychain login again: each read may prompt.
	keychainReread = 5 * time.Minute
)

// fixLogin: runway never refreshes the token itself, as the single-use
// refresh token would race Claude Code's own rotation.
const fixLogin = "open Claude Code once to refresh its login"

// ClaudeSources reads Claude's account windows from every local source and,
// only when none is fresh and pacing allows, the usage endpoint. Each
// field's zero value is a sensible default.
type ClaudeSources struct {
	ConfigDirs []string // Claude config folders: $CLAUDE_CONFIG_DIR's list, else ~/.claude
	Home       string   // the user's home: ~/.claude.json
	CacheDir   string   // the shared cache's folder; "" is DefaultCacheDir()
	StateDir   string   // runway's state folder; "" keeps pacing in this process only
	Client     *http.Client
	Endpoint   string // "" is DefaultEndpoint
	Offline    bool   // never call the endpoint, never write the shared cache
	Now        func() time.Time
	OwnedByMe  func(fs.FileInfo) bool                                    // tests fake another user with it
	Keychain   func(ctx context.Context, service string) ([]byte, error) // nil: /usr/bin/security on macOS

	mu         sync.Mutex
	limiter    *rate.Limiter
	mem        map[string][]byte // the state files when there is no StateDir
	creds      *credentials
	keychainAt time.Time
}

func (c *ClaudeSources) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Poll returns each Claude source's samples and state: the statusline's in
// the log (its freshness only: the caller reads the log), the shared cache,
// ~/.claude.json, and the endpoint when none is fresh and pacing allows
// (every ActiveInterval while activeSession, else IdleInterval).
func (c *ClaudeSources) Poll(ctx context.Context, activeSession bool) ([]burn.Sample, []SourceState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	line := c.statuslineState(now)
	cached, cacheSt := c.readCache(now)
	kept, jsonSt := c.readClaudeJSON(now)

	freshBy := ""
	for _, st := range []SourceState{line, cacheSt, jsonSt} {
		if st.State == StateOK && now.Sub(st.ObservedAt) <= Fresh {
			freshBy = st.Name
			break
		}
	}
	live, oauthSt := c.pollEndpoint(ctx, now, activeSession, freshBy)

	samples := append(append(cached, kept...), live...)
	return samples, []SourceState{line, cacheSt, jsonSt, oauthSt}
}

func (c *ClaudeSources) statuslineState(now time.Time) SourceState {
	st := SourceState{Name: NameStatusline, State: StateMissing,
		Detail: "no recent statusline sample in runway's log",
		Fix:    "set Claude Code's statusLine command to `runway statusline`"}
	if c.StateDir == "" {
		return st
	}
	newest, err := LogIn(c.StateDir).newest(now)
	if err != nil {
		st.State, st.Detail = StateError, err.Error()
		return st
	}
	for k, s := range newest {
		if k.Provider == burn.Claude && k.Source == burn.SourceStatusline && s.ObservedAt.After(st.ObservedAt) {
			st.ObservedAt = s.ObservedAt
		}
	}
	if st.ObservedAt.IsZero() {
		return st
	}
	st.Fix = ""
	age := now.Sub(st.ObservedAt)
	st.Detail = fmt.Sprintf("newest sample %s ago", age.Round(time.Second))
	st.State = StateOK
	if age > Fresh {
		st.State = StateStale
		st.Detail += " (no Claude reply since)"
	}
	return st
}

func (c *ClaudeSources) loadPacing() pacing {
	var p pacing
	c.load(pacingName, &p)
	return p
}

func (c *ClaudeSources) savePacing(p pacing) error {
	if err := c.save(pacingName, p); err != nil {
		return fmt.Errorf("quota: record the usage endpoint's pacing: %w", err)
	}
	return nil
}

// pollEndpoint calls the usage endpoint when due, and says why not otherwise.
func (c *ClaudeSources) pollEndpoint(ctx context.Context, now time.Time, active bool, freshBy string) ([]burn.Sample, SourceState) {
	if c.Offline {
		return nil, SourceState{Name: NameOAuth, State: StateOff, Detail: "offline: the usage endpoint is not called"}
	}
	interval := IdleInterval
	if active {
		interval = ActiveInterval
	}
	p, st, ok := c.claimCall(now, interval, freshBy)
	if !ok {
		return nil, st
	}
	samples, o := c.fetch(ctx, now, p.Rejected)
	p = c.recordCall(o, c.now())
	st = SourceState{Name: NameOAuth, State: o.state, Detail: o.detail, Fix: o.fix, ObservedAt: p.LastOK,
		NextTry: maxTime(p.BackoffUntil, now.Add(interval))}
	return samples, st
}

// claimCall records in the shared pacing file that this process calls now,
// or says why it must not: every runway process shares the rate limit.
func (c *ClaudeSources) claimCall(now time.Time, interval time.Duration, freshBy string) (pacing, SourceState, bool) {
	unlock, err := lockState(c.StateDir)
	if errors.Is(err, errLocked) {
		return pacing{}, c.waiting(c.loadPacing(), now, interval, err.Error()), false
	}
	if err != nil {
		return pacing{}, SourceState{Name: NameOAuth, State: StateError, Detail: err.Error(), Fix: "make runway's state folder writable"}, false
	}
	p := c.loadPacing()
	why := ""
	since := now.Sub(p.LastCall)
	switch {
	case freshBy != "":
		why = "not needed: " + freshBy + " is fresh"
	case now.Before(p.BackoffUntil):
		why = "backing off"
	case !p.LastCall.IsZero() && since >= 0 && since < interval:
		why = fmt.Sprintf("called %s ago; at most once every %s", since.Round(time.Second), interval)
	case !c.allow(now):
		why = "called by this process a moment ago"
	}
	if why != "" {
		unlock()
		if freshBy != "" {
			return p, SourceState{Name: NameOAuth, State: StatePaced, Detail: why, ObservedAt: p.LastOK}, false
		}
		return p, c.waiting(p, now, interval, why), false
	}
	// A claim that cannot be recorded would let every process call.
	p.LastCall = now
	err = c.savePacing(p)
	unlock()
	if err != nil {
		return p, SourceState{Name: NameOAuth, State: StateError, Detail: err.Error(),
			Fix: "make runway's state folder writable", ObservedAt: p.LastOK}, false
	}
	return p, SourceState{}, true
}

// recordCall writes the outcome into the pacing file, read afresh under the
// lock as another process may have written it meanwhile.
func (c *ClaudeSources) recordCall(o outcome, done time.Time) pacing {
	if unlock, err := lockState(c.StateDir); err == nil {
		defer unlock()
	}
	p := c.loadPacing()
	p.State, p.Detail, p.Fix = o.state, o.detail, o.fix
	switch {
	case o.state == StateOK:
		p.LastOK, p.Failures, p.BackoffUntil, p.Rejected = done, 0, time.Time{}, ""
	case o.retryAfter > 0:
		p.BackoffUntil = done.Add(o.retryAfter)
	case o.failed:
		p.Failures++
		p.BackoffUntil = done.Add(backoff(p.Failures, 5*time.Minute, time.Hour))
	}
	if o.rejected != "" {
		p.Rejected = o.rejected
	}
	c.savePacing(p)
	return p
}

// allow is the in-process limiter, a second guard behind the shared file.
func (c *ClaudeSources) allow(now time.Time) bool {
	if c.limiter == nil {
		c.limiter = rate.NewLimiter(rate.Every(ActiveInterval), 1)
	}
	return c.limiter.AllowN(now, 1)
}

// waiting is the endpoint's state when not called: the last outcome while it
// holds, else paced.
func (c *ClaudeSources) waiting(p pacing, now time.Time, interval time.Duration, why string) SourceState {
	st := SourceState{Name: NameOAuth, State: p.State, Detail: p.Detail, Fix: p.Fix, ObservedAt: p.LastOK,
		NextTry: maxTime(p.BackoffUntil, p.LastCall.Add(interval))}
	if st.NextTry.Before(now) {
		st.NextTry = now
	}
	switch st.State {
	case StateLoggedOut, StateMissing, StateError, StateNoSubscription:
	case StateBackoff:
		if !now.Before(p.BackoffUntil) {
			st.State, st.Detail = StatePaced, why
		}
	default:
		st.State, st.Detail = StatePaced, why
	}
	return st
}

// outcome is what one attempt at the endpoint gave.
type outcome struct {
	state       State
	detail, fix string
	failed      bool          // back off with growing pauses
	retryAfter  time.Duration // back off this long (429)
	rejected    string        // fingerprint of a refused token
}

// fetch calls the endpoint once, or twice when a 401 came with a token Claude
// Code has since replaced.
func (c *ClaudeSources) fetch(ctx context.Context, now time.Time, rejected string) ([]burn.Sample, outcome) {
	cr, err := c.readCredentials(ctx, now, false)
	if o, stop := usable(cr, err, now, rejected); stop {
		return nil, o
	}
	for attempt := 0; ; attempt++ {
		status, hdr, body, err := c.get(ctx, cr.token)
		if err != nil {
			return nil, outcome{state: StateError, failed: true, detail: scrub(err.Error(), cr.token)}
		}
		switch {
		case status == http.StatusOK:
			at := c.now()
			samples, perr := parseUsage(body, at, burn.SourceOAuth)
			if perr != nil {
				return nil, outcome{state: StateError, failed: true,
					detail: scrub(fmt.Sprintf("the usage endpoint answered 200 with %s: %s", describe(hdr, body, false, cr.token), strings.TrimPrefix(perr.Error(), "quota: ")), cr.token)}
			}
			if dir := cr.dir; dir != "" || c.Home != "" {
				if dir == "" {
					dir = filepath.Join(c.Home, ".claude")
				}
				samples = withAccount(samples, Account(dir, c.Home))
			}
			o := outcome{state: StateOK, detail: fmt.Sprintf("%d window(s) read", len(samples))}
			if why := c.writeCache(body, at); why != "" {
				o.detail += "; shared cache " + why
			}
			return samples, o
		case status == http.StatusUnauthorized && attempt == 0:
			// Claude Code may have refreshed the token since we read it.
			fresh, err := c.readCredentials(ctx, now, true)
			if err == nil && fresh.id != cr.id {
				if o, stop := usable(fresh, nil, now, rejected); stop {
					return nil, o
				}
				cr = fresh
				continue
			}
			fallthrough
		case status == http.StatusUnauthorized, status == http.StatusForbidden:
			return nil, outcome{state: StateLoggedOut, rejected: cr.id, fix: fixLogin,
				detail: fmt.Sprintf("the usage endpoint refused the login in %s (token %s, HTTP %d)", cr.where, cr.id, status)}
		case status == http.StatusTooManyRequests:
			wait := retryAfter(hdr.Get("Retry-After"), now)
			return nil, outcome{state: StateBackoff, retryAfter: wait,
				detail: fmt.Sprintf("the usage endpoint is rate limiting (429): waiting %s", wait)}
		default:
			return nil, outcome{state: StateBackoff, failed: true,
				detail: scrub(fmt.Sprintf("the usage endpoint answered HTTP %d with %s", status, describe(hdr, body, true, cr.token)), cr.token)}
		}
	}
}

// usable stops a call without a readable login, with an expired token or
// one already refused.
func usable(cr credentials, err error, now time.Time, rejected string) (outcome, bool) {
	switch {
	case errors.Is(err, errNoCredentials):
		return outcome{state: StateMissing, detail: "no Claude Code login found (.credentials.json or Keychain)",
			fix: "log in with Claude Code (run `claude`, then /login); without it only local sources give Claude's percent"}, true
	case err != nil:
		return outcome{state: StateError, detail: err.Error(), fix: fixLogin}, true
	case !cr.expiresAt.IsZero() && !now.Before(cr.expiresAt):
		return outcome{state: StateLoggedOut, fix: fixLogin,
			detail: fmt.Sprintf("token %s in %s expired %s ago", cr.id, cr.where, now.Sub(cr.expiresAt).Round(time.Minute))}, true
	case cr.id == rejected:
		return outcome{state: StateLoggedOut, fix: fixLogin,
			detail: fmt.Sprintf("the usage endpoint refused the login in %s (token %s)", cr.where, cr.id)}, true
	}
	return outcome{}, false
}

// describe names a body without quoting it: its type, size and, for a JSON
// error, the error's type; scrubbed of the token before any cut.
func describe(hdr http.Header, body []byte, withError bool, token string) string {
	raw := scrub(hdr.Get("Content-Type"), token)
	ct, _, _ := mime.ParseMediaType(raw)
	switch {
	case ct == "" && strings.TrimSpace(raw) != "":
		ct = "unreadable content type"
	case ct == "":
		ct = "no content type"
	}
	d := fmt.Sprintf("a %d-byte %s body", len(body), short(scrub(ct, token), 60))
	if _, err := parseUsage(body, time.Time{}, burn.SourceOAuth); withError && errors.Is(err, errUsageError) {
		d += " (" + short(scrub(strings.TrimPrefix(err.Error(), "quota: "), token), 100) + ")"
	}
	return d
}

// retryAfter is a 429's wait: Retry-After (seconds or an HTTP date) within
// [minRetry, maxRetry].
func retryAfter(h string, now time.Time) time.Duration {
	var d time.Duration
	h = strings.TrimSpace(h)
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		d = time.Duration(min(secs, int64(maxRetry/time.Second))) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, minRetry), maxRetry)
}

// get calls the endpoint with the headers Claude Code sends.
func (c *ClaudeSources) get(ctx context.Context, token string) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	if !validToken(token) {
		return 0, nil, nil, errors.New("quota: the stored token has characters a header cannot carry")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("quota: usage endpoint: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("anthropic-beta", oauthBeta)
	req.Header.Set("User-Agent", "claude-code/"+ClaudeCodeVersion)
	req.Header.Set("Accept", "application/json")
	client := c.Client
	if client == nil {
		client = &http.Client{Timeout: callTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("quota: usage endpoint: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("quota: usage endpoint: read answer: %w", err)
	}
	return resp.StatusCode, resp.Header, body, nil
}

// validToken: printable ASCII without spaces, as OAuth tokens are.
func validToken(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] >= 0x7f {
			return false
		}
	}
	return t != ""
}
