package quota

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/codextest"
)

// clock is a settable time source for the code under test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *clock { return &clock{t: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

var t0 = time.Date(2026, 12, 1, 3, 50, 0, 0, time.UTC)

// fakeCodex is an AppServer whose child is this test binary replaying a
// recorded exchange in the given mode.
func fakeCodex(t *testing.T, replay, mode string) (*AppServer, *clock, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := filepath.Abs(filepath.Join("testdata", "appserver", replay))
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "transcript")
	clk := newClock(t0)
	a := &AppServer{
		Path: exe,
		env: append(os.Environ(), helperEnv+"=appserver", replayEnv+"="+rec, modeEnv+"="+mode,
			transcriptEnv+"="+transcript),
		Now:     clk.Now,
		Timeout: 10 * time.Second,
		Version: "0.1.0",
	}
	t.Cleanup(func() { a.Close() })
	return a, clk, transcript
}

// sent is what the fake server received, one message a line.
func sent(t *testing.T, transcript string) []string {
	t.Helper()
	b, err := os.ReadFile(transcript)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Fields(strings.TrimSpace(string(b)))
}

// TestAppServerReplays replays each recorded exchange: the handshake sent,
// the state and what it tells a person (cause first), when it is asked
// again, and a read within the interval answered without a request.
func TestAppServerReplays(t *testing.T) {
	const notIn, expired = "Codex is not logged in — run `codex login`", "Codex login expired — run `codex login`"
	cases := []struct {
		log     string
		state   State
		code    int64
		warning string
		retry   time.Duration
	}{
		{"chatgpt_auth_mock_backend.log", StateOK, 0, "", MinCodexInterval},
		{"basic.log", StateLoggedOut, -32600, notIn, 5 * time.Minute},
		{"noinitialized.log", StateLoggedOut, -32600, notIn, 5 * time.Minute},
		{"jsonrpc.log", StateLoggedOut, -32600, notIn, 5 * time.Minute},
		{"v169_nologin.log", StateLoggedOut, -32600, notIn, 5 * time.Minute},
		{"apikey.log", StateNoSubscription, -32600, "", 30 * time.Minute},
		{"chatgpt_500.log", StateBackoff, -32603, "Codex usage service failed (500)", 5 * time.Minute},
		{"chatgpt_unreachable.log", StateBackoff, -32603, "Codex usage service unreachable", 5 * time.Minute},
		// The usage service refuses the login: only a new login helps.
		{"chatgpt_401.log", StateLoggedOut, -32603, expired, 5 * time.Minute},
		{"chatgpt_403.log", StateLoggedOut, -32603, expired, 5 * time.Minute},
		{"chatgpt_429.log", StateBackoff, -32603, "Codex usage service busy (429)", 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(strings.TrimSuffix(tc.log, ".log"), func(t *testing.T) {
			t.Parallel()
			a, clk, transcript := fakeCodex(t, tc.log, "replay")
			samples, err := a.Read(context.Background())
			st := a.State()
			if st.Name != NameCodexRPC || st.State != tc.state || said(st) != tc.warning || !st.NextTry.Equal(t0.Add(tc.retry)) {
				t.Fatalf("state = %+v (err %v), want %s saying %q, next try %v later", st, err, tc.state, tc.warning, tc.retry)
			}
			checkHandshake(t, sent(t, transcript))
			var rpc *rpcError
			switch {
			case tc.state == StateOK:
				want := []burn.Sample{
					{ObservedAt: t0, Provider: burn.Codex, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 42, ResetsAt: time.Unix(1796100622, 0).UTC(), Source: burn.SourceCodexRPC},
					{ObservedAt: t0, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 17, ResetsAt: time.Unix(1796497022, 0).UTC(), Source: burn.SourceCodexRPC},
				}
				if err != nil || len(samples) != len(want) || samples[0] != want[0] || samples[1] != want[1] || st.Detail != "read 5h 42%, weekly 17%" {
					t.Fatalf("samples = %+v (%v, %q)\nwant %+v", samples, err, st.Detail, want)
				}
			case !errors.As(err, &rpc) || rpc.Code != tc.code || len(samples) != 0:
				t.Fatalf("err = %v with %+v, want an rpcError %d and no samples", err, samples, tc.code)
			case tc.state == StateNoSubscription && !strings.Contains(st.Fix, "ChatGPT account"):
				t.Errorf("fix = %q", st.Fix)
			}
			// Too soon: the last result, and no new request.
			clk.Add(30 * time.Second)
			again, err2 := a.Read(context.Background())
			if len(again) != len(samples) || (err == nil) != (err2 == nil) {
				t.Fatalf("second read = %v, %v; want the first result", again, err2)
			}
			if n := len(sent(t, transcript)); n != 3 {
				t.Fatalf("a read within the interval reached the server (%d messages)", n)
			}
		})
	}
}

// checkHandshake: initialize with runway's clientInfo, initialized, then
// the rate-limit read.
func checkHandshake(t *testing.T, msgs []string) {
	t.Helper()
	if len(msgs) != 3 {
		t.Fatalf("client sent %d messages, want 3: %q", len(msgs), msgs)
	}
	if gjson.Get(msgs[0], "method").Str != "initialize" || gjson.Get(msgs[0], "params.clientInfo.name").Str != "runway" {
		t.Errorf("first message = %s", msgs[0])
	}
	if msgs[1] != `{"method":"initialized"}` {
		t.Errorf("second message = %s", msgs[1])
	}
	if gjson.Get(msgs[2], "method").Str != "account/rateLimits/read" || !gjson.Get(msgs[2], "params.excludeResetCreditDetails").Bool() {
		t.Errorf("third message = %s", msgs[2])
	}
}

// TestAppServerCadence: 30-s ticks, a little late or early, get one request
// a minute (not every 90 s), never two within the minimum less the slack,
// all from one child; each read's state is observed then, next due a
// minute on.
func TestAppServerCadence(t *testing.T) {
	a, clk, transcript := fakeCodex(t, "chatgpt_auth_mock_backend.log", "repeat")
	jitter := []time.Duration{0, 3 * time.Millisecond, -2 * time.Millisecond, 40 * time.Millisecond, -30 * time.Millisecond, 2 * time.Second}
	var reads []time.Time
	for i := range 20 {
		at := t0.Add(time.Duration(i)*30*time.Second + jitter[i%len(jitter)])
		clk.Add(at.Sub(clk.Now()))
		before := len(sent(t, transcript))
		if _, err := a.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(sent(t, transcript)) > before {
			reads = append(reads, at)
			if st := a.State(); st.State != StateOK || !st.ObservedAt.Equal(at) || !st.NextTry.Equal(at.Add(MinCodexInterval)) {
				t.Fatalf("state after the read at %v = %+v", at, st)
			}
		}
	}
	if len(reads) != 10 {
		t.Fatalf("%d requests in 10 minutes of 30-s ticks, want 10: %v", len(reads), reads)
	}
	if n := len(sent(t, transcript)); n != 2+10 {
		t.Fatalf("sent %d messages, want 12 (one child's handshake, ten reads)", n)
	}
	for i := 1; i < len(reads); i++ {
		if gap := reads[i].Sub(reads[i-1]); gap < MinCodexInterval-readSlack {
			t.Fatalf("requests %v apart", gap)
		}
	}
}

func TestAppServerLoggedOutIsLasting(t *testing.T) {
	a, clk, transcript := fakeCodex(t, "v169_nologin.log", "replay")
	a.Read(context.Background())
	clk.Add(2 * time.Minute)
	a.Read(context.Background())
	if n := len(sent(t, transcript)); n != 3 {
		t.Fatalf("logged-out state was retried within minutes (%d messages)", n)
	}
	clk.Add(4 * time.Minute)
	a.Read(context.Background())
	if n := len(sent(t, transcript)); n != 6 {
		t.Fatalf("after 6 minutes a fresh child should ask again (%d messages)", n)
	}
	if st := a.State(); st.State != StateLoggedOut {
		t.Fatalf("state = %+v", st)
	}
}

func TestAppServerHang(t *testing.T) {
	a, clk, _ := fakeCodex(t, "chatgpt_auth_mock_backend.log", "hang")
	a.Timeout = 300 * time.Millisecond
	a.grace = 100 * time.Millisecond
	_, err := a.Read(context.Background())
	if !errors.Is(err, errCallTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	st := a.State()
	if st.State != StateError || !st.NextTry.Equal(t0.Add(MinCodexInterval)) {
		t.Fatalf("state = %+v", st)
	}
	if a.ch != nil {
		t.Fatal("the hung child was kept")
	}
	// After the back-off a new child is started (this one answers).
	for i, kv := range a.env {
		if strings.HasPrefix(kv, modeEnv+"=") {
			a.env[i] = modeEnv + "=replay"
		}
	}
	a.Timeout = 10 * time.Second
	clk.Add(MinCodexInterval - readSlack - time.Second)
	if _, err := a.Read(context.Background()); !errors.Is(err, errCallTimeout) {
		t.Fatalf("read during the back-off = %v, want the last error", err)
	}
	clk.Add(time.Second)
	if samples, err := a.Read(context.Background()); err != nil || len(samples) != 2 {
		t.Fatalf("after the back-off: %v, %v", samples, err)
	}
}

func TestAppServerHangInHandshake(t *testing.T) {
	a, _, _ := fakeCodex(t, "basic.log", "hang-init")
	a.Timeout = 200 * time.Millisecond
	a.grace = 100 * time.Millisecond
	if _, err := a.Read(context.Background()); !errors.Is(err, errCallTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if st := a.State(); st.State != StateError || !strings.Contains(st.Detail, "handshake") {
		t.Fatalf("state = %+v", st)
	}
}

func TestAppServerCrashMidCall(t *testing.T) {
	a, clk, _ := fakeCodex(t, "chatgpt_auth_mock_backend.log", "crash")
	_, err := a.Read(context.Background())
	if !errors.Is(err, errChildExited) {
		t.Fatalf("err = %v, want the child's exit", err)
	}
	st := a.State()
	if st.State != StateError || !strings.Contains(st.Detail, "exit status 3") || !strings.Contains(st.Detail, "panicked") {
		t.Fatalf("state = %+v", st)
	}
	if strings.Contains(st.Detail, "\x1b") {
		t.Fatalf("terminal escapes in %q", st.Detail)
	}
	// Restarted after the back-off, which grows while it keeps failing.
	at := clk.Add(MinCodexInterval)
	if _, err := a.Read(context.Background()); !errors.Is(err, errChildExited) {
		t.Fatalf("restart: err = %v", err)
	}
	if st := a.State(); !st.NextTry.Equal(at.Add(2 * time.Minute)) {
		t.Fatalf("second back-off: next try %v, want %v", st.NextTry, at.Add(2*time.Minute))
	}
}

func TestAppServerCloseKillsStubbornChild(t *testing.T) {
	a, _, _ := fakeCodex(t, "chatgpt_auth_mock_backend.log", "stubborn")
	a.grace = 100 * time.Millisecond
	if _, err := a.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := a.ch
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch.done:
	default:
		t.Fatal("Close returned before the child was reaped")
	}
	if ch.cmd.ProcessState == nil || ch.cmd.ProcessState.Success() {
		t.Fatalf("child state %v: want killed", ch.cmd.ProcessState)
	}
	if _, err := a.Read(context.Background()); !errors.Is(err, errClosed) {
		t.Fatalf("read after Close: %v", err)
	}
}

func TestAppServerCloseIsClean(t *testing.T) {
	a, _, _ := fakeCodex(t, "chatgpt_auth_mock_backend.log", "replay")
	if _, err := a.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	ch := a.ch
	a.Close()
	if !ch.cmd.ProcessState.Success() {
		t.Fatalf("child ended %v: want a clean exit on closed stdin", ch.cmd.ProcessState)
	}
}

func TestAppServerMissing(t *testing.T) {
	a := &AppServer{Path: filepath.Join(t.TempDir(), "no-codex"), Now: newClock(t0).Now}
	_, err := a.Read(context.Background())
	if !errors.Is(err, ErrNoCodex) {
		t.Fatalf("err = %v", err)
	}
	if st := a.State(); st.State != StateMissing || st.Fix == "" {
		t.Fatalf("state = %+v", st)
	}

	t.Setenv("PATH", t.TempDir())
	b := &AppServer{Now: newClock(t0).Now}
	if _, err := b.Read(context.Background()); !errors.Is(err, ErrNoCodex) {
		t.Fatalf("no codex on PATH: err = %v", err)
	}
}

func TestAppServerOffline(t *testing.T) {
	a := &AppServer{Path: "/nonexistent", Offline: true}
	if _, err := a.Read(context.Background()); !errors.Is(err, ErrOff) {
		t.Fatalf("err = %v", err)
	}
	if st := a.State(); st.State != StateOff {
		t.Fatalf("state = %+v", st)
	}
}

// TestAppServerRealCodex runs the real `codex app-server` with empty homes:
// not logged in, which must surface as that state.
func TestAppServerRealCodex(t *testing.T) {
	path := codextest.Binary(t)
	a := &AppServer{Path: path, env: codextest.Env(t.TempDir(), t.TempDir()), Timeout: 20 * time.Second}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	_, err := a.Read(ctx)
	st := a.State()
	if st.State != StateLoggedOut || st.Fix != "run `codex login`" {
		t.Fatalf("real codex, not logged in: state %+v, err %v", st, err)
	}
	var rpc *rpcError
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "authentication required") {
		t.Fatalf("err = %v", err)
	}
}

// TestAppServerRealCodexLoggedIn: one AppServer follows a real, logged-in
// `codex app-server` through windows, 429, a hang, 401 and 403, as the tray's does.
func TestAppServerRealCodexLoggedIn(t *testing.T) {
	path := codextest.Binary(t)
	backend := codextest.NewBackend(t)
	reset5h, resetWeek := backend.Resets()
	codexHome := codextest.LoggedIn(t, t.TempDir(), backend)
	clk := newClock(t0)
	a := &AppServer{Path: path, env: codextest.Env(t.TempDir(), codexHome), Timeout: 20 * time.Second, Now: clk.Now}
	defer a.Close()
	read := func(mode string) ([]burn.Sample, SourceState, error) {
		t.Helper()
		backend.Set(mode)
		if st := a.State(); !st.NextTry.IsZero() {
			clk.Add(st.NextTry.Sub(clk.Now()))
		}
		before := backend.Calls()
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		samples, err := a.Read(ctx)
		if backend.Calls() != before+1 {
			t.Fatalf("%s: %d usage requests, want 1", mode, backend.Calls()-before)
		}
		return samples, a.State(), err
	}

	samples, st, err := read(codextest.OK)
	if err != nil || st.State != StateOK || st.Detail != "read 5h 37%, weekly 12%" {
		t.Fatalf("200: state %+v, err %v", st, err)
	}
	want := []burn.Sample{
		{ObservedAt: clk.Now(), Provider: burn.Codex, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 37, ResetsAt: reset5h.UTC(), Source: burn.SourceCodexRPC},
		{ObservedAt: clk.Now(), Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 12, ResetsAt: resetWeek.UTC(), Source: burn.SourceCodexRPC},
	}
	if len(samples) != 2 || samples[0] != want[0] || samples[1] != want[1] {
		t.Fatalf("200: samples %+v\nwant %+v", samples, want)
	}

	// Busy: back off, keep the windows read, say why and until when.
	samples, st, err = read(codextest.Busy)
	if st.State != StateBackoff || said(st) != "Codex usage service busy (429)" ||
		!st.NextTry.Equal(clk.Now().Add(5*time.Minute)) || len(samples) != 2 || samples[0] != want[0] {
		t.Fatalf("429: state %+v, samples %+v, err %v", st, samples, err)
	}

	// A back end that never answers (the child from before still runs, so
	// only the read waits): the call times out, the child is dropped.
	a.Timeout = 5 * time.Second
	_, st, err = read(codextest.Hang)
	if st.State != StateError || !errors.Is(err, errCallTimeout) || a.ch != nil {
		t.Fatalf("hang: state %+v, err %v", st, err)
	}
	a.Timeout = 20 * time.Second
	// The login expired, then was revoked: logged out with the fix, never
	// a passing failure. Then, logged in again, a fresh child reads the
	// windows.
	for _, mode := range []string{codextest.Expired, codextest.Forbidden} {
		_, st, err = read(mode)
		if st.State != StateLoggedOut || st.Fix != "run `codex login`" || said(st) != "Codex login expired — run `codex login`" ||
			!strings.Contains(st.Detail, "HTTP "+mode) {
			t.Fatalf("%s: state %+v, err %v", mode, st, err)
		}
		var rpc *rpcError
		if !errors.As(err, &rpc) || rpc.Code != -32603 {
			t.Fatalf("%s: err = %v", mode, err)
		}
	}

	backend.SetWindows(38, 12, reset5h, resetWeek)
	if samples, st, err = read(codextest.OK); err != nil || st.State != StateOK || st.Detail != "read 5h 38%, weekly 12%" || len(samples) != 2 {
		t.Fatalf("recovered: state %+v, samples %+v, err %v", st, samples, err)
	}
	if n := backend.BadAuth(); n != 0 {
		t.Errorf("%d usage requests without the login's token and account", n)
	}
}

func TestRateLimitsUpdatedNotification(t *testing.T) {
	steps, err := loadExchange(filepath.Join("testdata", "appserver", "chatgpt_auth_mock_backend.log"))
	if err != nil {
		t.Fatal(err)
	}
	c := &child{now: func() time.Time { return t0.Add(time.Hour) }}
	for _, s := range steps {
		for _, line := range s.out {
			c.handle([]byte(line))
		}
	}
	got := c.takeBonus()
	// Two turns, each a 5-hour and a weekly window; the last turn said 15 %.
	if len(got) != 4 {
		t.Fatalf("bonus samples = %+v", got)
	}
	last := got[2]
	if last.UsedPercent != 15 || last.Window != burn.FiveHour || !last.ObservedAt.Equal(time.UnixMilli(1796097024808).UTC()) {
		t.Fatalf("last 5h bonus = %+v", last)
	}
}

func TestReplayKeepsRecordedBytes(t *testing.T) {
	line := `{"error":{"code":-32600,"message":"codex account authentication required to read rate limits"},"id":2}`
	if got := answer(line, "2", "7"); got != strings.Replace(line, `"id":2}`, `"id":7}`, 1) {
		t.Fatalf("answer = %s", got)
	}
	note := `{"method":"configWarning","params":{"id":2}}`
	if got := answer(note, "2", "7"); got != note {
		t.Fatalf("a notification was changed: %s", got)
	}
}

func TestParseRateLimits(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []burn.Sample
	}{
		{"weekly in primary", `{"rateLimits":{"limitId":"codex","primary":{"usedPercent":30,"windowDurationMins":10080,"resetsAt":1796497022},"secondary":null}}`,
			[]burn.Sample{{ObservedAt: t0, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 30, ResetsAt: time.Unix(1796497022, 0).UTC(), Source: burn.SourceCodexRPC}}},
		{"other bucket only", `{"rateLimits":{"limitId":"codex_bengalfox","primary":{"usedPercent":5,"windowDurationMins":300}},"rateLimitsByLimitId":{"codex_bengalfox":{}}}`, nil},
		{"other bucket first", `{"rateLimits":{"limitId":"codex_bengalfox","primary":{"usedPercent":5,"windowDurationMins":300}},"rateLimitsByLimitId":{"codex":{"limitId":"codex","primary":{"usedPercent":9,"windowDurationMins":300}}}}`,
			[]burn.Sample{{ObservedAt: t0, Provider: burn.Codex, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 9, Source: burn.SourceCodexRPC}}},
		{"no length, no reset", `{"rateLimits":{"primary":{"usedPercent":12},"secondary":{"usedPercent":3,"windowDurationMins":null}}}`,
			[]burn.Sample{
				{ObservedAt: t0, Provider: burn.Codex, Window: burn.FiveHour, WindowMinutes: 300, UsedPercent: 12, Source: burn.SourceCodexRPC},
				{ObservedAt: t0, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 3, Source: burn.SourceCodexRPC}}},
	}
	for _, tc := range cases {
		got, err := parseRateLimits([]byte(tc.body), t0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %+v", tc.name, got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %+v, want %+v", tc.name, got[i], tc.want[i])
			}
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{}`, `{"rateLimits":`} {
		if _, err := parseRateLimits([]byte(bad), t0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// said is what a source's state gives text.SourceWarning to word: the
// cause, then the fix (the retry is NextTry); "" when it needs no look.
func said(st SourceState) string {
	if !st.NeedsLook() {
		return ""
	}
	if st.Fix == "" {
		return st.Cause
	}
	return st.Cause + " — " + st.Fix
}

// The engine tells a new warning by the fields a source carries, not by
// its sentence rendered in the local zone.
func TestSourceStatesAlike(t *testing.T) {
	busy := SourceState{Name: NameCodexRPC, State: StateBackoff, Cause: "Codex usage service busy (429)", NextTry: t0.Add(5 * time.Minute)}
	later := busy
	later.NextTry = t0.Add(10 * time.Minute)
	in := busy
	in.NextTry = busy.NextTry.In(time.FixedZone("here", 2*3600))
	paced := SourceState{Name: NameCodexRPC, State: StatePaced, Detail: "not asked"}
	ok := SourceState{Name: NameCodexRPC, State: StateOK, Detail: "read 5h 42%"}
	for _, tc := range []struct {
		a, b SourceState
		want bool
	}{{busy, busy, true}, {busy, in, true}, {busy, later, false}, {busy, ok, false}, {ok, paced, true}} {
		if got := tc.a.Alike(tc.b); got != tc.want {
			t.Errorf("%+v alike %+v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
