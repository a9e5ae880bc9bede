package runway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
)

// statuslineStdin is what Claude Code writes to its statusLine command, in
// its exact shape, carrying the rate_limits of the session's last response.
func statuslineStdin(session, transcript string, used5h float64, reset time.Time) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": transcript, "cwd": "/home/dev/src/shop",
		"model":     map[string]any{"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
		"workspace": map[string]any{"current_dir": "/home/dev/src/shop", "project_dir": "/home/dev/src/shop"},
		"version":   "2.1.197", "output_style": map[string]any{"name": "default"},
		"cost":                map[string]any{"total_cost_usd": 0.41, "total_duration_ms": 201233},
		"exceeds_200k_tokens": false,
		"rate_limits": map[string]any{
			"five_hour": map[string]any{"used_percentage": used5h, "resets_at": reset.Unix()},
			"seven_day": map[string]any{"used_percentage": 26.1, "resets_at": reset.Add(100 * time.Hour).Unix()},
		},
	})
	return b
}

// A Claude session as the statusline test plays it: its transcript and the
// figures of its last response.
type playedSession struct {
	w    *world
	c    *synth.Claude
	path string
	used float64
	n    int
}

func (w *world) session(id string) *playedSession {
	c := &synth.Claude{SessionID: id, Cwd: "/home/dev/src/shop", Model: "claude-sonnet-4-5-20250929"}
	return &playedSession{w: w, c: c, path: filepath.Join(w.claudeDir, "projects", "-home-dev-src-shop", id+".jsonl")}
}

// reply writes a prompt and a response ending at at, which left the window
// at used; Claude Code then runs the statusline.
func (s *playedSession) reply(at time.Time, used float64) {
	s.n++
	s.w.write(s.path, s.c.User(at.Add(-10*time.Second), 300))
	s.w.write(s.path, s.c.Response(at, fmt.Sprintf("msg_%s_%04d", s.c.SessionID[:4], s.n), fmt.Sprintf("req_%s_%04d", s.c.SessionID[:4], s.n),
		synth.Usage{Input: 12, Output: 900, CacheCreation: 1500, CacheRead: 40000}, 1, "end_turn")...)
	s.used = used
	s.statusline(at.Add(time.Second))
}

// statusline runs the statusline for this session at at, with the figures
// of its last response (all Claude Code has).
func (s *playedSession) statusline(at time.Time) string {
	s.w.t.Helper()
	line, err := statusline(s.w.env(), statuslineStdin(s.c.SessionID, s.path, s.used, s.w.start.Add(4*time.Hour)), at)
	if err != nil {
		s.w.t.Fatalf("statusline: %v", err)
	}
	return line
}

func (w *world) claudeWindow(at time.Time) burn.ProviderStatus {
	w.t.Helper()
	snap := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return at }}).Snapshot
	p := snap.Provider(burn.Claude)
	if p == nil || p.Window == nil {
		w.t.Fatalf("no claude window at %v: %+v", at, snap.Providers)
	}
	return *p
}

// Two sessions, one idle at 39.7 % while the other climbs to 42.2 %:
// typing into the idle one re-sends 39.7 %, which is as old as its last
// reply and moves nothing back; the refreshInterval repeats of the busy
// one are no new observations either.
func TestStatuslineIdleSessionReadingIsOld(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	idle, busy := w.session("aaaa0000-0000-4000-8000-00000000000a"), w.session("bbbb0000-0000-4000-8000-00000000000b")
	idle.reply(base, 39.7)
	// 0.1 % every 12 s: 0.5 %/min, 90 m/h of a 5-hour window.
	at := base
	for i := 1; i <= 25; i++ {
		at = base.Add(time.Duration(i) * 12 * time.Second)
		busy.reply(at, 39.7+float64(i)/10)
		busy.statusline(at.Add(6 * time.Second)) // refreshInterval: the same figures again
	}
	before := w.claudeWindow(at.Add(2 * time.Second))
	// The prompt is submitted to the idle session: its transcript gets the
	// prompt, the statusline its last reply's figures.
	prompt := at.Add(3 * time.Second)
	idle.w.write(idle.path, idle.c.User(prompt, 200))
	line := idle.statusline(prompt.Add(500 * time.Millisecond))
	p := w.claudeWindow(prompt.Add(time.Second))
	if math.Abs(p.Window.UsedPercent-42.2) > 1e-9 {
		t.Fatalf("after the idle session's prompt: used %.1f%%, want 42.2%% (line %q)", p.Window.UsedPercent, line)
	}
	if p.Burn.Method == burn.MethodAverage || math.Abs(p.Burn.QuotaMinutesPerHour-90)/90 > 0.15 {
		t.Fatalf("burn %.1f m/h (%s), want about 90 (before the prompt: %.1f, %s); line %q",
			p.Burn.QuotaMinutesPerHour, p.Burn.Method, before.Burn.QuotaMinutesPerHour, before.Burn.Method, line)
	}
}

// One session: Claude Code runs the statusline when a prompt is submitted,
// still with the previous reply's figures. Those calls are no observations,
// so the measured burn does not dip between replies.
func TestStatuslinePromptSubmitIsNoObservation(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	s := w.session("cccc0000-0000-4000-8000-00000000000c")
	// 0.6 % every 90 s, the prompt 75 s after the reply (later than the
	// log's heartbeat): 0.4 %/min, 72 m/h.
	var worst float64
	for i := 0; i <= 16; i++ {
		at := base.Add(time.Duration(i) * 90 * time.Second)
		if i > 0 {
			s.w.write(s.path, s.c.User(at.Add(-15*time.Second), 200))
			s.statusline(at.Add(-15 * time.Second))
		}
		s.reply(at, 30+0.6*float64(i))
		if i >= 6 {
			p := w.claudeWindow(at.Add(-14 * time.Second))
			worst = max(worst, math.Abs(p.Burn.QuotaMinutesPerHour-72)/72)
		}
	}
	if worst > 0.05 {
		t.Fatalf("the burn between replies was off the true 72 m/h by up to %.0f %%", worst*100)
	}
}

// Without a tray, a statusline call answers from the snapshot the call a
// moment before computed, unless its own session wrote since or its reading
// is higher than that snapshot shows; after statuslineReuse it computes
// again, and a fresh tray snapshot comes first.
func TestStatuslineReusesTheLastCallsSnapshot(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	a, b := w.session("aaaa1111-0000-4000-8000-00000000000a"), w.session("bbbb1111-0000-4000-8000-00000000000b")
	touch := func(path string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	call := func(s *playedSession, at time.Time, used float64) time.Time {
		t.Helper()
		d, err := w.env().StatuslineData(context.Background(), statuslineStdin(s.c.SessionID, s.path, used, w.start.Add(4*time.Hour)), at)
		if err != nil {
			t.Fatal(err)
		}
		return d.Snapshot.At
	}
	a.reply(base, 30) // its statusline at base+1s computes
	touch(a.path, base)
	made := base.Add(time.Second)
	// Another session replies; a's next call does not read the logs for it.
	b.w.write(b.path, b.c.Response(base.Add(2*time.Second), "msg_b_1", "req_b_1", synth.Usage{Output: 5000}, 1, "end_turn")...)
	touch(b.path, base.Add(2*time.Second))
	if got := call(a, base.Add(3*time.Second), 30); !got.Equal(made) {
		t.Fatalf("2 s after a call: snapshot of %v, want the reused one of %v", got, made)
	}
	if got, want := call(a, made.Add(statuslineReuse+time.Second), 30), made.Add(statuslineReuse+time.Second); !got.Equal(want) {
		t.Fatalf("past the reuse: snapshot of %v, want one computed at %v", got, want)
	}
	made = made.Add(statuslineReuse + time.Second)
	// a's own reply after that snapshot: computed afresh.
	touch(a.path, made.Add(time.Second))
	if got, want := call(a, made.Add(2*time.Second), 30), made.Add(2*time.Second); !got.Equal(want) {
		t.Fatalf("its transcript written since: snapshot of %v, want %v", got, want)
	}
	made = made.Add(2 * time.Second)
	touch(a.path, made.Add(-time.Second))
	// A higher reading than the snapshot shows: computed afresh.
	if got, want := call(a, made.Add(time.Second), 30.5), made.Add(time.Second); !got.Equal(want) {
		t.Fatalf("a higher reading: snapshot of %v, want %v", got, want)
	}
	// The tray's fresh snapshot wins.
	tray := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return made.Add(1500 * time.Millisecond) }}).Snapshot
	if err := w.env().writeSnapshot(SnapshotName, tray); err != nil {
		t.Fatal(err)
	}
	if got := call(a, made.Add(2*time.Second), 30); !got.Equal(tray.At) {
		t.Fatalf("with a tray: snapshot of %v, want the tray's %v", got, tray.At)
	}
}

// `runway now` answers from a statusline call's snapshot of seconds before,
// as from the tray's, and reads the logs once it is older than the reuse.
func TestNowAnswersFromARecentStatuslineCall(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	s := w.session("cccc1111-0000-4000-8000-00000000000c")
	s.reply(base, 30) // its statusline at base+1s computes and keeps the snapshot
	made := base.Add(time.Second)
	if got, ok := w.env().RecentSnapshot(made.Add(3 * time.Second)); !ok || !got.At.Equal(made) {
		t.Fatalf("3 s after a statusline call: %v %v, want its snapshot of %v", got.At, ok, made)
	}
	if got, ok := w.env().RecentSnapshot(made.Add(statuslineReuse + time.Second)); ok {
		t.Fatalf("past the reuse: a snapshot of %v", got.At)
	}
	// The tray's, when fresh, comes first.
	tray := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return made.Add(2 * time.Second) }}).Snapshot
	if err := w.env().writeSnapshot(SnapshotName, tray); err != nil {
		t.Fatal(err)
	}
	if got, ok := w.env().RecentSnapshot(made.Add(3 * time.Second)); !ok || !got.At.Equal(tray.At) {
		t.Fatalf("with a tray: %v %v, want the tray's %v", got.At, ok, tray.At)
	}
}

// A session burns 90 m/h; a statusline call with nothing to time it by (no
// session id, no transcript) re-sends a figure below the current one (an
// idle session's). It changes nothing: the figures of the minute after are
// those without it. (One step below, it read as a new series: the burn
// 47 % off for a minute.)
func TestStatuslineStaleResendChangesNothing(t *testing.T) {
	for _, below := range []float64{0.1, 0.2, 0.5, 2} {
		play := func(stale bool) (figures []float64) {
			w := newWorld(t)
			base := w.start.Add(time.Hour)
			s := w.session("eeee0000-0000-4000-8000-00000000000e")
			// 0.1 % every 12 s: 90 m/h.
			var at time.Time
			used := 30.0
			for i := 1; i <= 40; i++ {
				at = base.Add(time.Duration(i) * 12 * time.Second)
				used = 30 + float64(i)/10
				s.reply(at, used)
			}
			if stale {
				if _, err := statusline(w.env(), statuslineStdin("", "", used-below, w.start.Add(4*time.Hour)), at.Add(2*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			for k := 1; k <= 8; k++ {
				at2 := at.Add(time.Duration(k) * 12 * time.Second)
				s.reply(at2, used+float64(k)/10)
				p := w.claudeWindow(at2.Add(time.Second))
				figures = append(figures, p.Burn.QuotaMinutesPerHour, p.Window.UsedPercent)
			}
			return figures
		}
		want, got := play(false), play(true)
		worst := 0.0
		for i := 0; i < len(want); i += 2 {
			worst = max(worst, math.Abs(got[i]-want[i])/want[i])
			if math.Abs(got[i]-want[i]) > 1e-6 || math.Abs(got[i+1]-want[i+1]) > 1e-9 {
				t.Errorf("%.1f %% below: %d s after, %.1f m/h at %.1f %%, without it %.1f m/h at %.1f %%", below, 12*(i/2+1), got[i], got[i+1], want[i], want[i+1])
			}
		}
		t.Logf("a reading %.1f %% below: the burn of the next 96 s up to %.0f %% off the one without it", below, worst*100)
	}
}

// A new Claude session opens its transcript with an unstamped
// file-history-snapshot line; five minutes in, `runway now --at` shows it
// burning as live runway does.
func TestAtReadsANewSession(t *testing.T) {
	w := newWorld(t)
	base := w.start.Add(time.Hour)
	s := w.session("dddd0000-0000-4000-8000-00000000000d")
	w.write(s.path, []byte(fmt.Sprintf(`{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"%s"},"isSnapshotUpdate":false}`+"\n",
		base.UTC().Format("2006-01-02T15:04:05.000Z"))))
	// 1 % a minute (180 m/h of a 5-hour window), a reply every 20 s.
	var at time.Time
	for i := 1; i <= 15; i++ {
		at = base.Add(time.Duration(i) * 20 * time.Second)
		s.reply(at, 30+float64(i)/3)
	}
	now := at.Add(5 * time.Second)
	live := w.env().Evaluate(context.Background(), EvalOptions{Now: func() time.Time { return now }}).Snapshot
	replay := w.env().Evaluate(context.Background(), EvalOptions{At: now}).Snapshot
	share := func(s burn.Snapshot) string {
		for _, ss := range s.Sessions {
			if ss.ID == "dddd0000-0000-4000-8000-00000000000d" {
				return fmt.Sprintf("%.0f m/h (%s)", ss.QuotaMinutesPerHour, ss.RateKind)
			}
		}
		return "none"
	}
	t.Logf("live: session %s, account %.0f m/h; --at: session %s, account %.0f m/h",
		share(live), live.Provider(burn.Claude).Burn.QuotaMinutesPerHour, share(replay), replay.Provider(burn.Claude).Burn.QuotaMinutesPerHour)
	if diff := snapshotDiff(live, replay); len(diff) > 0 {
		t.Errorf("--at differs from live:\n  %v", diff)
	}
}

// Claude Code passes a damaged percent (150) after a good 40: the reading
// was dropped silently and the line kept "☺" from the older one. The line
// is what a person sees (Claude Code shows no stderr): "?".
func TestStatuslineDamagedPercent(t *testing.T) {
	w := newWorld(t)
	at := w.start.Add(4*time.Hour + 30*time.Minute)
	reset := w.start.Add(5 * time.Hour)
	line, err := statusline(w.env(), statuslineStdin("", "", 40, reset), at)
	if err != nil || !strings.HasSuffix(line, "☺") {
		t.Fatalf("good reading: %q, %v; want ☺", line, err)
	}
	line, err = statusline(w.env(), statuslineStdin("", "", 150, reset), at.Add(time.Second))
	if err == nil || !strings.Contains(err.Error(), "used_percentage that is no number in 0–110") || strings.Contains(line, "☺") || !strings.HasSuffix(line, "?") {
		t.Fatalf("damaged reading: %q, %v; want ? and a warning", line, err)
	}
}
