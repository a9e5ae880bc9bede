package runway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
)

func TestFaultCodexAppServer(t *testing.T) {
	w := newWorld(t)
	codex, mode := fakeCodex(t, w.dir, w.codexReset, w.weekReset)
	setMode(t, mode, "hang")
	env := w.env()
	env.Config.Offline = false
	env.Config.CodexPath = codex
	env.CodexTimeout = 3 * time.Second // the "hang" case waits it out; a real handshake on a loaded 2-core machine took over 1.5 s

	now := w.start.Add(10 * time.Minute)
	// An active Codex thread whose rollout carries no percent: the engine
	// asks the app-server.
	w.codexTurn(now.Add(-10*time.Second), -1)
	w.claudeTurn(now.Add(-30 * time.Second))
	l := startLive(t, env, now, func(o *EngineOptions) { o.PollEvery = 5 * time.Millisecond })
	// next moves past the app-server's back-off, keeping the thread active.
	next := func(m string) {
		setMode(t, mode, m)
		at := l.source(quota.NameCodexRPC).NextTry.Add(time.Second)
		l.clock.Set(at)
		w.codexTurn(at, -1)
	}

	// The snapshot's warning says the cause first; doctor has the details.
	for i, c := range []struct{ mode, warning, detail string }{
		{"hang", "codex app-server did not answer, retrying at ", "did not answer in time"},
		{"crash", "codex app-server exited, retrying at ", "exited"},
		{"garbage", "codex app-server answered something unexpected, retrying at ", "unexpected account/rateLimits/read result"},
	} {
		if c.mode != "hang" {
			next(c.mode)
		}
		if !l.waitFor("the codex-rpc "+c.mode+" warning", hasWarning(c.warning)) {
			t.Fatalf("%s: snapshot warnings %q; sources %+v", c.mode, l.e.Latest().Warnings, l.e.Sources())
		}
		requireDoctor(t, env, l.clock.Now, true, markWarn, quota.NameCodexRPC, "error: ", c.detail)
		l.stillRunning(w)
		// The 5-ms polls meet the stored error at every turn: each kind of
		// failure is logged once.
		if got := l.logs.matching("codex app-server"); len(got) != i+1 {
			t.Errorf("%s: log lines about the app-server %q, want one per kind of failure", c.mode, got)
		}
	}

	// The app-server answers again: the warning goes, its windows show and
	// are in the sample log for every runway process.
	next("ok")
	l.showsAgain(burn.Codex, burn.SourceCodexRPC, 42, "codex-rpc")
	requireDoctor(t, env, l.clock.Now, true, markOK, quota.NameCodexRPC)
	l.stillRunning(w)
}

// usageServer is a fake usage endpoint whose answer the test sets.
type usageServer struct {
	*httptest.Server
	mu    sync.Mutex
	mode  string
	calls atomic.Int64
	body  string
}

func newUsageServer(t *testing.T, body string) *usageServer {
	u := &usageServer{body: body, mode: "ok"}
	u.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		u.calls.Add(1)
		u.mu.Lock()
		mode := u.mode
		u.mu.Unlock()
		switch mode {
		case "429":
			rw.Header().Set("Retry-After", "0")
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(rw, `{"error":{"type":"rate_limit_error","message":"Rate limited"}}`)
		case "500":
			rw.Header().Set("Content-Type", "text/plain")
			rw.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(rw, "upstream connect error")
		case "html":
			rw.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(rw, "<!DOCTYPE html><html><body>Just a moment…</body></html>")
		case "slow":
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusOK)
			fmt.Fprint(rw, `{"five_hour":{"utiliz`)
			rw.(http.Flusher).Flush()
			<-r.Context().Done() // the rest never comes
		default:
			rw.Header().Set("Content-Type", "application/json")
			fmt.Fprint(rw, u.body)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *usageServer) set(mode string) {
	u.mu.Lock()
	u.mode = mode
	u.mu.Unlock()
}

func TestFaultUsageEndpoint(t *testing.T) {
	w := newWorld(t)
	now := w.start.Add(10 * time.Minute)
	reset := now.Add(3 * time.Hour).UTC()
	srv := newUsageServer(t, fmt.Sprintf(`{"five_hour":{"utilization":37.0,"resets_at":%q},"seven_day":{"utilization":26.0,"resets_at":%q}}`,
		reset.Format(time.RFC3339Nano), reset.Add(48*time.Hour).Format(time.RFC3339Nano)))
	env := w.loggedInTo(srv.URL, "sk-ant-oat01-FAKEFAKEFAKE", now)
	w.claudeTurn(now.Add(-time.Second))
	srv.set("429")
	// The engine's own poll loop runs once at start; the test then drives
	// the polls itself, one per step of its clock.
	l := startLive(t, env, now, nil)
	ctx := context.Background()
	step := func(d time.Duration) {
		at := l.clock.Now().Add(d)
		l.clock.Set(at)
		l.e.poll(ctx)
		w.claudeTurn(at) // an active session; its line makes the engine recompute
	}

	// A 429 storm with Retry-After: 0 — twenty minutes of polls every 20 s
	// call the endpoint once per five minutes at most.
	for range 60 {
		step(20 * time.Second)
	}
	if n := srv.calls.Load(); n < 2 || n > 5 {
		t.Errorf("429 storm: %d calls in 20 minutes, want one per 5 minutes (2 to 5)", n)
	}
	l.waitFor("the 429 warning", hasWarning("claude-oauth: backoff", "429"))
	requireDoctor(t, env, l.clock.Now, false, markWarn, quota.NameOAuth, "429")
	trayDoctorShowsEngine(t, env, l, srv.calls.Load, quota.NameOAuth, "429")
	l.stillRunning(w)

	for _, c := range []struct{ mode, state, warning string }{
		{"500", "backoff", "HTTP 500"},
		{"html", "error", "text/html"},
		{"slow", "error", "read answer"},
	} {
		srv.set(c.mode)
		before := srv.calls.Load()
		for srv.calls.Load() == before {
			step(time.Minute)
			if l.clock.Now().Sub(now) > 24*time.Hour {
				t.Fatalf("%s: the endpoint was not called again in a day of polls", c.mode)
			}
		}
		if !l.waitFor("the "+c.mode+" warning", hasWarning("claude-oauth: "+c.state, c.warning)) {
			t.Logf("%s: warnings %q", c.mode, l.e.Latest().Warnings)
		}
		requireDoctor(t, env, l.clock.Now, false, markWarn, quota.NameOAuth, c.warning)
		l.stillRunning(w)
	}

	// The endpoint recovers: its sample shows, the warning goes, and the
	// sample is in the log for the other runway processes.
	srv.set("ok")
	before := srv.calls.Load()
	for srv.calls.Load() == before {
		step(time.Minute)
	}
	l.showsAgain(burn.Claude, burn.SourceOAuth, 37, "claude-oauth")
	t.Logf("%d calls to the fake endpoint over %v of polls every 20-60 s", srv.calls.Load(), l.clock.Now().Sub(now))
}

func TestFaultSampleLog(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	now := w.start.Add(time.Hour)
	w.claudeTurn(now.Add(-5 * time.Second))
	l := startLive(t, env, now, nil)
	log, err := quota.OpenLog(env.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	reset := now.Add(2 * time.Hour).UTC()
	mark := func(writer, i int) burn.Sample {
		return burn.Sample{ObservedAt: now.Add(-30*time.Minute + time.Duration(writer*1000+i)*time.Millisecond).UTC(),
			Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
			UsedPercent: float64(300+writer*50+i) / 10, ResetsAt: reset, Source: burn.SourceStatusline}
	}
	// A statusline process died mid-write: half a line, no newline.
	torn, _ := quota.OpenLog(t.TempDir())
	torn.Append(mark(9, 0))
	b, _ := os.ReadFile(torn.Path())
	appendBytes(t, log.Path(), b[:len(b)/2])

	// Four writers at once, one Append per sample, while the engine
	// compacts the log under them.
	const writers, each = 4, 60
	var wg sync.WaitGroup
	for k := range writers {
		wg.Go(func() {
			lg, err := quota.OpenLog(env.StateDir)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range each {
				if err := lg.Append(mark(k, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			l.e.compactLog()
		}
	})
	wg.Wait()

	got, _, _ := log.ReadAll(time.Time{})
	lost := 0
	for k := range writers {
		for i := range each {
			if !slices.Contains(got, mark(k, i)) {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d samples lost (torn line, concurrent writers, compaction)", lost, writers*each)
	}
	newest := mark(writers-1, each-1)
	l.waitFor("the newest sample", func(s burn.Snapshot) bool {
		return len(s.Providers) > 0 && s.Providers[0].Window != nil && s.Providers[0].Window.ObservedAt.Equal(newest.ObservedAt)
	})
	l.sameAsReplay("after the torn line and concurrent writers")

	// A foreign line in the log: skipped, and said.
	appendBytes(t, log.Path(), []byte("this is not a sample\n"))
	later := mark(writers, 0)
	later.ObservedAt = now.Add(-time.Second).UTC()
	later.UsedPercent = 51 // above the writers' newest: a window never goes back
	log.Append(later)
	if !l.waitFor("the skipped-line warning", func(s burn.Snapshot) bool {
		return hasWarning("sample log", "skipped 1 unreadable line")(s) && s.Providers[0].Window.ObservedAt.Equal(later.ObservedAt)
	}) {
		t.Logf("warnings: %q", l.e.Latest().Warnings)
	}
	requireDoctor(t, env, l.clock.Now, false, markWarn, "warning", "skipped 1 unreadable line")
	l.sameAsReplay("after a foreign line")
	l.stillRunning(w)
}

func TestFaultClockJumps(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	t0 := w.start.Add(30 * time.Minute)
	for at := w.start.Add(time.Minute); !at.After(t0); at = at.Add(40 * time.Second) {
		w.claudeTurn(at)
		w.codexTurn(at.Add(-5*time.Second), 10+at.Sub(w.start).Minutes()/10)
	}
	l := startLive(t, env, t0, nil)
	l.sameAsReplay("before the jumps")

	// Suspended for seven hours: past the lookback of everything above.
	ahead := t0.Add(7 * time.Hour)
	l.clock.Set(ahead)
	w.claudeTurn(ahead)
	// A new project: its folder makes the follower rescan at the new time.
	other := &synth.Claude{SessionID: "0ther5e5-0000-4000-8000-000000000001", Cwd: "/home/dev/src/other", Model: "claude-haiku-4-5-20251001"}
	w.write(filepath.Join(w.claudeDir, "projects", "-home-dev-src-other", other.SessionID+".jsonl"),
		other.Response(ahead, "msg_01OTHER", "req_011COTHER", synth.Usage{Input: 5, Output: 300, CacheCreation: 900, CacheRead: 9000}, 1, "end_turn")...)
	l.waitFor("the new project", func(s burn.Snapshot) bool {
		return slices.ContainsFunc(s.Sessions, func(ss burn.SessionStatus) bool { return ss.ID == other.SessionID })
	})
	l.sameAsReplay("seven hours ahead")

	// The clock is corrected back: the lines written while it was ahead
	// are in the future now. The engine must say so, keep running, and
	// show what a cold `runway now` shows at that instant.
	back := t0.Add(20 * time.Second)
	l.clock.Set(back)
	w.claudeTurn(back)
	want := env.Evaluate(context.Background(), EvalOptions{Now: l.clock.Now}).Snapshot
	if findWarning(want.Warnings, "is a clock wrong?") == "" {
		t.Errorf("runway now after the clock went back: no clock warning in %q", want.Warnings)
	}
	var diff []string
	if !l.waitFor("the snapshot of `runway now` after the clock went back", func(s burn.Snapshot) bool {
		diff = snapshotDiff(s, want)
		return len(diff) == 0
	}) {
		t.Errorf("live differs from runway now after the clock went back:\n  %s", strings.Join(diff, "\n  "))
	}
	requireDoctor(t, env, l.clock.Now, false, markWarn, "warning", "is a clock wrong?")
	l.stillRunning(w)
}
