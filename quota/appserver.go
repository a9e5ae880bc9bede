package quota

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

const (
	defaultCallTimeout = 20 * time.Second
	// MinCodexInterval paces rate-limit reads: each calls OpenAI's back end.
	MinCodexInterval = 60 * time.Second
	// readSlack: a caller ticking every 30 s lands a hair short of the
	// minute; without slack the cadence slips to 90 s.
	readSlack    = 5 * time.Second
	defaultGrace = 3 * time.Second
	maxRPCLine   = 4 << 20
)

var (
	errClosed      = errors.New("quota: codex app-server client closed")
	ErrOff         = errors.New("quota: codex app-server is off (offline)")
	ErrNoCodex     = errors.New("quota: codex not found")
	errBadResult   = errors.New("quota: unexpected account/rateLimits/read result")
	errCallTimeout = errors.New("quota: codex app-server did not answer in time")
	errChildExited = errors.New("quota: codex app-server exited")
)

type rpcError struct {
	Code    int64
	Message string
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("quota: codex app-server: %s (code %d)", e.Message, e.Code)
}

// AppServer reads Codex's plan windows from a long-lived `codex app-server`
// child (docs/formats.md), started on the first Read and restarted with
// back-off; answers a person must act on become lasting states, not retries.
type AppServer struct {
	Path    string        // the codex executable; "" looks up "codex" on $PATH
	Timeout time.Duration // per call; 0 means defaultCallTimeout
	Version string        // runway's version, sent as clientInfo
	Offline bool          // never start the child
	Now     func() time.Time

	// Set by tests only: the child's environment (nil inherits runway's),
	// and how long a stop waits for a clean exit before killing (0: 3 s).
	env   []string
	grace time.Duration

	mu       sync.Mutex // one Read (or Close) at a time
	ch       *child
	last     []burn.Sample
	lastErr  error
	lastRead time.Time
	failures int
	nextTry  time.Time

	quitOnce  sync.Once
	quit      chan struct{}
	closeOnce sync.Once

	smu   sync.Mutex
	state SourceState
}

func (a *AppServer) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *AppServer) quitCh() chan struct{} {
	a.quitOnce.Do(func() { a.quit = make(chan struct{}) })
	return a.quit
}

func (a *AppServer) setState(s SourceState) {
	s.Name = NameCodexRPC
	a.smu.Lock()
	a.state = s
	a.smu.Unlock()
}

// State is the source's state after the latest Read.
func (a *AppServer) State() SourceState {
	a.smu.Lock()
	defer a.smu.Unlock()
	if a.state.State == "" {
		if a.Offline {
			return SourceState{Name: NameCodexRPC, State: StateOff, Detail: "offline: codex app-server is not started"}
		}
		return SourceState{Name: NameCodexRPC, State: StatePaced, Detail: "not read yet"}
	}
	return a.state
}

// Read returns Codex's windows; sooner than the interval, or in a back-off,
// the previous result.
func (a *AppServer) Read(ctx context.Context) ([]burn.Sample, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.quitCh():
		return a.last, errClosed
	default:
	}
	if a.Offline {
		a.setState(SourceState{State: StateOff, Detail: "offline: codex app-server is not started"})
		return nil, ErrOff
	}
	now := a.now()
	interval := MinCodexInterval
	due := maxTime(a.lastRead.Add(interval), a.nextTry)
	if !a.lastRead.IsZero() && now.Before(due.Add(-readSlack)) {
		return a.last, a.lastErr
	}
	a.lastRead = now
	samples, err := a.read(ctx)
	done := a.now()
	st := SourceState{}
	switch {
	case err == nil:
		a.failures = 0
		a.nextTry = now.Add(interval)
		a.last, a.lastErr = samples, nil
		st = SourceState{State: StateOK, Detail: "read " + figures(samples), ObservedAt: done}
		if len(samples) == 0 {
			st.Detail = "the account has no Codex window data"
		}
		st.NextTry = a.nextTry
		a.setState(st)
		return samples, nil
	case errors.Is(err, ErrNoCodex):
		a.nextTry = now.Add(10 * time.Minute)
		st = SourceState{State: StateMissing, Detail: err.Error(), Cause: "codex not found",
			Fix: "install the Codex CLI (npm install -g @openai/codex) or set codex_path"}
	default:
		st = a.classify(err, now)
	}
	// Keep the previous windows for burn to age: an error is never a fresh number.
	a.lastErr = err
	st.ObservedAt = a.state.ObservedAt
	st.NextTry = maxTime(a.nextTry, now.Add(interval))
	a.setState(st)
	return a.last, err
}

// classify turns a failed read into a state and sets the next try.
func (a *AppServer) classify(err error, now time.Time) SourceState {
	var rpc *rpcError
	if errors.As(err, &rpc) {
		msg := rpc.Message
		status := httpStatus(msg)
		switch {
		case strings.Contains(msg, "codex account authentication required"):
			// A fresh child reads a new login.
			a.stop()
			a.nextTry = now.Add(5 * time.Minute)
			return SourceState{State: StateLoggedOut, Cause: "Codex is not logged in", Detail: "Codex is not logged in", Fix: "run `codex login`"}
		case strings.Contains(msg, "chatgpt authentication required"):
			a.stop()
			a.nextTry = now.Add(30 * time.Minute)
			return SourceState{State: StateNoSubscription, Cause: "Codex has an API-key login",
				Detail: "Codex is logged in with an API key: there is no plan quota to read",
				Fix:    "run `codex login` with a ChatGPT account to see plan windows"}
		case status == 401 || status == 403:
			// Refused login: only a new login (read by a fresh child) helps.
			a.stop()
			a.failures = 0
			a.nextTry = now.Add(5 * time.Minute)
			return SourceState{State: StateLoggedOut, Cause: "Codex login expired",
				Detail: fmt.Sprintf("Codex's usage service refused the login (HTTP %d): it expired or was revoked", status),
				Fix:    "run `codex login`"}
		}
		a.failures++
		a.nextTry = now.Add(backoff(a.failures, 5*time.Minute, time.Hour))
		st := SourceState{State: StateBackoff}
		switch {
		case status == 429:
			st.Cause = "Codex usage service busy (429)"
		case status != 0:
			st.Cause = fmt.Sprintf("Codex usage service failed (%d)", status)
		case strings.Contains(msg, "error sending request"):
			st.Cause = "Codex usage service unreachable"
		default:
			st.Cause = "Codex usage service failed"
		}
		st.Detail = st.Cause + ": " + short(msg, 200)
		return st
	}
	// The child hung, died or spoke garbage: a new one after a growing pause.
	a.stop()
	a.failures++
	a.nextTry = now.Add(backoff(a.failures, time.Minute, 30*time.Minute))
	st := SourceState{State: StateError, Detail: short(err.Error(), 300), Cause: "codex app-server failed"}
	switch {
	case errors.Is(err, errCallTimeout):
		st.Cause = "codex app-server did not answer"
	case errors.Is(err, errChildExited):
		st.Cause = "codex app-server exited"
	case errors.Is(err, errBadResult):
		st.Cause = "codex app-server answered something unexpected"
	}
	return st
}

// statusRE finds the back end's HTTP status in a -32603 message
// ("GET …/wham/usage failed: 401 Unauthorized; …").
var statusRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bfailed: ([1-5][0-9][0-9])\b`) })

func httpStatus(msg string) int {
	m := statusRE().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// figures says what a read found: "5h 37%, weekly 12%".
func figures(samples []burn.Sample) string {
	var parts []string
	seen := map[burn.WindowClass]bool{}
	for _, s := range samples {
		if s.Source != burn.SourceCodexRPC || seen[s.Window] {
			continue
		}
		seen[s.Window] = true
		parts = append(parts, string(s.Window)+" "+strconv.FormatFloat(s.UsedPercent, 'f', -1, 64)+"%")
	}
	return strings.Join(parts, ", ")
}

// backoff is base·2^(n−1), capped.
func backoff(n int, base, limit time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// short cuts text to n bytes on one line.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func (a *AppServer) read(ctx context.Context) ([]burn.Sample, error) {
	if a.ch == nil {
		ch, err := a.start(ctx)
		if err != nil {
			return nil, err
		}
		a.ch = ch
	}
	res, err := a.call(ctx, "account/rateLimits/read", map[string]any{"excludeResetCreditDetails": true})
	if err != nil {
		return nil, err
	}
	samples, err := parseRateLimits(res, a.now())
	if err != nil {
		return nil, err
	}
	return append(samples, a.ch.takeBonus()...), nil
}

func (a *AppServer) start(ctx context.Context) (*child, error) {
	path := a.Path
	if path == "" {
		p, err := exec.LookPath("codex")
		if err != nil {
			return nil, fmt.Errorf("%w on $PATH", ErrNoCodex)
		}
		path = p
	}
	ch, err := spawn(path, a.env, a.now)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNoCodex, path)
		}
		return nil, err
	}
	a.ch = ch
	version := a.Version
	if version == "" {
		version = "dev"
	}
	init := map[string]any{"clientInfo": map[string]any{"name": "runway", "title": "runway", "version": version}}
	if _, err := a.call(ctx, "initialize", init); err != nil {
		a.stop()
		return nil, fmt.Errorf("quota: codex app-server handshake: %w", err)
	}
	if err := ch.send(map[string]any{"method": "initialized"}, a.timeout()); err != nil {
		a.stop()
		return nil, fmt.Errorf("quota: codex app-server handshake: %w", err)
	}
	return ch, nil
}

func (a *AppServer) timeout() time.Duration {
	if a.Timeout > 0 {
		return a.Timeout
	}
	return defaultCallTimeout
}

func (a *AppServer) call(ctx context.Context, method string, params any) ([]byte, error) {
	ch := a.ch
	id, reply := ch.expect()
	defer ch.forget()
	if err := ch.send(map[string]any{"id": id, "method": method, "params": params}, a.timeout()); err != nil {
		return nil, err
	}
	timer := time.NewTimer(a.timeout())
	defer timer.Stop()
	select {
	case r := <-reply:
		return r.result, r.err
	case <-timer.C:
		return nil, fmt.Errorf("%w (%s, %v)", errCallTimeout, method, a.timeout())
	case <-ctx.Done():
		return nil, fmt.Errorf("quota: codex app-server %s: %w", method, ctx.Err())
	case <-a.quitCh():
		return nil, errClosed
	}
}

// stop closes the child's stdin (it exits on EOF), kills it after the grace.
func (a *AppServer) stop() {
	if a.ch == nil {
		return
	}
	grace := a.grace
	if grace <= 0 {
		grace = defaultGrace
	}
	a.ch.stop(grace)
	a.ch = nil
}

// Close ends the child cleanly and makes later Reads fail with errClosed.
func (a *AppServer) Close() error {
	a.closeOnce.Do(func() { close(a.quitCh()) })
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stop()
	return nil
}

type reply struct {
	result []byte
	err    error
}

// child is one running app-server process and the goroutine reading it.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stderr *tailBuffer
	done   chan struct{} // closed once the process is reaped
	now    func() time.Time

	mu      sync.Mutex
	lastID  int64
	waiting chan reply // the answer to call lastID; calls go one at a time (AppServer.mu)
	exited  error      // set when stdout ended
	bonus   []burn.Sample
}

func spawn(path string, env []string, now func() time.Time) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("quota: codex app-server: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("quota: codex app-server: %w", err)
	}
	c := &child{
		cmd:    exec.Command(path, "app-server"),
		stdin:  inW,
		stderr: &tailBuffer{max: 2048},
		done:   make(chan struct{}),
		now:    now,
	}
	c.cmd.Env = env
	c.cmd.Stdin = inR
	c.cmd.Stdout = outW
	c.cmd.Stderr = c.stderr
	c.cmd.WaitDelay = time.Second
	ownGroup(c.cmd)
	err = c.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("quota: start codex app-server: %w", err)
	}
	go func() {
		c.cmd.Wait()
		close(c.done)
	}()
	go c.readLoop(outR)
	return c, nil
}

func (c *child) expect() (int64, chan reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastID++
	r := make(chan reply, 1)
	if c.exited != nil {
		r <- reply{err: c.exited}
	} else {
		c.waiting = r
	}
	return c.lastID, r
}

// forget stops waiting: a late answer is dropped.
func (c *child) forget() {
	c.mu.Lock()
	c.waiting = nil
	c.mu.Unlock()
}

// send writes one message as one line, within the timeout.
func (c *child) send(msg any, timeout time.Duration) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.stdin.SetWriteDeadline(time.Now().Add(timeout)) // not all platforms: best effort
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%w: write: %v", errChildExited, err)
	}
	return nil
}

// readLoop delivers answers and keeps rate-limit update notifications.
func (c *child) readLoop(out *os.File) {
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := readLine(br, maxRPCLine)
		if len(line) > 0 {
			c.handle(line)
		}
		if err != nil {
			break
		}
	}
	// The exit status says how it ended; a child living on is not waited for.
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	c.mu.Lock()
	c.exited = c.exitError()
	if c.waiting != nil {
		c.waiting <- reply{err: c.exited}
		c.waiting = nil
	}
	c.mu.Unlock()
}

func (c *child) exitError() error {
	how := " (closed its output)"
	select {
	case <-c.done:
		if st := c.cmd.ProcessState; st != nil {
			how = " (" + st.String() + ")"
		}
	default:
	}
	if tail := c.stderr.lastLine(); tail != "" {
		how += ": " + short(tail, 200)
	}
	return fmt.Errorf("%w%s", errChildExited, how)
}

func (c *child) handle(line []byte) {
	if !jsonsafe.Valid(line) {
		return
	}
	msg := gjson.ParseBytes(line)
	id := msg.Get("id")
	res, rpcErr := msg.Get("result"), msg.Get("error")
	if id.Type == gjson.Number && (res.Exists() || rpcErr.Exists()) {
		c.mu.Lock()
		var r chan reply
		if id.Int() == c.lastID {
			r, c.waiting = c.waiting, nil
		}
		c.mu.Unlock()
		if r == nil {
			return
		}
		if rpcErr.Exists() {
			r <- reply{err: &rpcError{Code: rpcErr.Get("code").Int(), Message: rpcErr.Get("message").String()}}
			return
		}
		r <- reply{result: []byte(res.Raw)}
		return
	}
	if msg.Get("method").Str == "account/rateLimits/updated" && !id.Exists() {
		s := parseRateLimitsUpdated(msg, c.now())
		c.mu.Lock()
		c.bonus = append(c.bonus, s...)
		if len(c.bonus) > 16 {
			c.bonus = c.bonus[len(c.bonus)-16:]
		}
		c.mu.Unlock()
	}
}

func (c *child) takeBonus() []burn.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.bonus
	c.bonus = nil
	return b
}

func (c *child) stop(grace time.Duration) {
	c.stdin.Close()
	select {
	case <-c.done:
		return
	case <-time.After(grace):
	}
	killGroup(c.cmd)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		// Unkillable: leave the reaper goroutine to it.
	}
}

// tailBuffer keeps the end of what the child writes to stderr.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(stripEscapes(string(t.b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// stripEscapes removes ANSI colour sequences (codex logs in colour).
func stripEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
