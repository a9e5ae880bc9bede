package runway

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/quota"
	"github.com/agentrunway/runway/text"
)

// Trust: the state folder is the user's alone, and what runway cannot read
// closes the gate (burn.Gate answers 3), never opens it.

const nobody = 65534

// asNobodyIfRoot runs check in dir: directly for an ordinary user, and as
// root in a child process as nobody (root reads and writes past any mode,
// so a permission would prove nothing).
func asNobodyIfRoot(t *testing.T, test, fault string, check func(t *testing.T, dir string)) {
	if dir, ok := inChild(fault); ok {
		check(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		check(t, t.TempDir())
		return
	}
	base := t.TempDir()
	if err := os.Chmod(filepath.Dir(base), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(base, "runway.test")
	if err := copyFile(os.Args[0], exe); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "world")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	child(t, exe, test, fault, dir, &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: nobody, Gid: nobody, NoSetGroups: true},
	}, nil)
}

// exhaustedLine is a statusline sample of a used-up 5-hour window.
func exhaustedLine(now time.Time) string {
	return `{"observed_at":"` + now.Add(-30*time.Second).UTC().Format(time.RFC3339) +
		`","provider":"claude","window":"5h","window_minutes":300,"used_percent":100,"resets_at":"` +
		now.Add(time.Hour).UTC().Format(time.RFC3339) + `","source":"statusline"}` + "\n"
}

// Reading the sample log never needs write access: a read-only folder and
// a 0400 log still give the verdict (2 here); a log that cannot be read at
// all is a warning and "cannot tell" (3), never "on track", and doctor says
// so. Before, the log was opened for writing to be read: `claude no data`,
// exit 0.
func TestTrustReadOnlyState(t *testing.T) {
	asNobodyIfRoot(t, "TestTrustReadOnlyState", "readonly-state", func(t *testing.T, dir string) {
		w := newWorldIn(t, dir)
		env := w.env()
		now := w.start.Add(time.Hour)
		w.claudeTurn(now.Add(-time.Minute))
		logPath := filepath.Join(env.StateDir, quota.LogName)
		if err := os.WriteFile(logPath, []byte(exhaustedLine(now)), 0o400); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(env.StateDir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(env.StateDir, 0o700); os.Chmod(logPath, 0o600) })
		if f, err := os.OpenFile(logPath, os.O_WRONLY, 0); err == nil {
			f.Close()
			t.Skip("this user writes a 0400 file")
		}
		clock := func() time.Time { return now }
		ev := env.Evaluate(t.Context(), EvalOptions{Now: clock})
		if v, why := burn.Gate(ev.Snapshot); v != burn.Blocked {
			t.Errorf("read-only state: gate %d (%s), want 2; line %q, warnings %q", v, why, text.Line(ev.Snapshot, time.UTC), ev.Snapshot.Warnings)
		}
		requireDoctor(t, env, clock, false, markProblem, "state", "cannot record")

		if err := os.Chmod(logPath, 0); err != nil {
			t.Fatal(err)
		}
		ev = env.Evaluate(t.Context(), EvalOptions{Now: clock})
		if v, why := burn.Gate(ev.Snapshot); v != burn.CannotTell {
			t.Errorf("unreadable log: gate %d (%s), want 3", v, why)
		}
		if findWarning(ev.Snapshot.Warnings, "sample log", "permission denied") == "" {
			t.Errorf("unreadable log: warnings %q", ev.Snapshot.Warnings)
		}
		requireDoctor(t, env, clock, false, markProblem, "state", "permission denied")
	})
}

// A samples.jsonl linked by someone else to a private file of the user's:
// runway never writes through it (O_NOFOLLOW), says so, and doctor too.
// A state folder others may write, that is the user's, is tightened to 0700.
func TestTrustPlantedSymlink(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	now := w.start.Add(time.Hour)
	if err := os.Chmod(env.StateDir, 0o777); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(w.dir, "private.txt")
	if err := os.WriteFile(private, []byte("secret notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(private, filepath.Join(env.StateDir, quota.LogName)); err != nil {
		t.Fatal(err)
	}
	stdin := []byte(`{"session_id":"5e55a1f0-0000-4000-8000-00000000c1a0","rate_limits":{"five_hour":{"used_percentage":50,"resets_at":` +
		strconv.FormatInt(now.Add(time.Hour).Unix(), 10) + `}}}`)
	_, err := statusline(env, stdin, now)
	if b, _ := os.ReadFile(private); string(b) != "secret notes\n" {
		t.Fatalf("the statusline wrote through the planted link: %q", b)
	}
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("statusline error %v, want it to name the symbolic link", err)
	}
	if fi, _ := os.Stat(env.StateDir); fi.Mode().Perm() != 0o700 {
		t.Errorf("state folder mode %v, want it tightened to 0700", fi.Mode().Perm())
	}
	ev := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }})
	if findWarning(ev.Snapshot.Warnings, "symbolic link") == "" {
		t.Errorf("warnings %q, want the link named", ev.Snapshot.Warnings)
	}
	if v, _ := burn.Gate(ev.Snapshot); v != burn.CannotTell {
		t.Errorf("gate %d with a planted log, want 3", v)
	}
	requireDoctor(t, env, func() time.Time { return now }, false, markProblem, "state", "symbolic link")
}

// A state folder another user made, with a fresh snapshot saying 100 %:
// refused, the snapshot never printed nor its planted warning echoed. A
// snapshot of another user's inside the user's own folder: ignored too.
func TestTrustForeignState(t *testing.T) {
	if os.Geteuid() != 0 {
		skipUnlessCI(t, "only root can make a file another user's")
	}
	w := newWorld(t)
	env := w.env()
	now := w.start.Add(time.Hour)
	planted := burn.Snapshot{At: now, Warnings: []string{"\x1b]0;pwned\x07planted"},
		Providers: []burn.ProviderStatus{{Provider: burn.Claude, State: burn.Exhausted,
			Window: &burn.WindowStatus{Class: burn.FiveHour, UsedPercent: 100, State: burn.Exhausted, ObservedAt: now, Fresh: true}}}}
	if err := env.writeSnapshot(SnapshotName, planted); err != nil {
		t.Fatal(err)
	}
	snapPath := filepath.Join(env.StateDir, SnapshotName)
	for _, p := range []string{env.StateDir, snapPath} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := env.LatestSnapshot(now); ok {
		t.Error("another user's state folder: its snapshot was used")
	}
	ev := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }})
	if findWarning(ev.Snapshot.Warnings, "belongs to another user") == "" {
		t.Errorf("warnings %q, want the foreign folder named", ev.Snapshot.Warnings)
	}
	if findWarning(ev.Snapshot.Warnings, "planted") != "" {
		t.Error("the planted warning was echoed")
	}
	if v, _ := burn.Gate(ev.Snapshot); v != burn.CannotTell {
		t.Errorf("gate %d, want 3", v)
	}
	requireDoctor(t, env, func() time.Time { return now }, false, markProblem, "state", "refused", "another user")

	// The folder is ours again, the snapshot still another user's.
	if err := os.Chown(env.StateDir, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	if _, ok := env.LatestSnapshot(now); ok {
		t.Error("another user's snapshot in our folder was used")
	}
	ev = env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return now }})
	if findWarning(ev.Snapshot.Warnings, SnapshotName, "another user", "ignored") == "" {
		t.Errorf("warnings %q, want the foreign snapshot named", ev.Snapshot.Warnings)
	}
}

// A clock that was ahead, then stepped back: the statusline's readings of
// now are recorded (the future line made them look like repeats), `now`
// shows them, and the future line is named in a warning.
func TestTrustClockStepsBack(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	now := w.start.Add(time.Hour)
	line := func(at time.Time) []byte {
		return []byte(`{"session_id":"5e55a1f0-0000-4000-8000-00000000c1a0","rate_limits":{"five_hour":{"used_percentage":50,"resets_at":` +
			strconv.FormatInt(now.Add(2*time.Hour).Unix(), 10) + `}}}`)
	}
	if _, err := statusline(env, line(now), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		at := now.Add(time.Duration(i) * 10 * time.Second)
		if _, err := statusline(env, line(at), at); err != nil {
			t.Fatal(err)
		}
	}
	at := now.Add(30 * time.Second)
	ev := env.Evaluate(t.Context(), EvalOptions{Now: func() time.Time { return at }})
	p := ev.Snapshot.Provider(burn.Claude)
	if p == nil || p.Window == nil || p.Window.UsedPercent != 50 {
		t.Fatalf("after the clock stepped back: line %q, warnings %q", text.Line(ev.Snapshot, time.UTC), ev.Snapshot.Warnings)
	}
	if findWarning(ev.Snapshot.Warnings, "dated after now") == "" {
		t.Errorf("warnings %q, want the future line named", ev.Snapshot.Warnings)
	}
}

// A session log modified inside the lookback that cannot be opened may
// hold the usage that matters: a readable rollout at 10 % beside a newer
// unreadable one gave "☺" and exit 0. The gate cannot tell (3), and says
// which log.
func TestTrustUnreadableRecentLog(t *testing.T) {
	asNobodyIfRoot(t, "TestTrustUnreadableRecentLog", "unreadable-log", func(t *testing.T, dir string) {
		w := newWorldIn(t, dir)
		env := w.env()
		now := w.start.Add(time.Hour)
		w.codexTurn(now.Add(-2*time.Minute), 10)
		clock := func() time.Time { return now }
		ev := env.Evaluate(t.Context(), EvalOptions{Now: clock})
		if v, why := burn.Gate(ev.Snapshot); v != burn.Lasts {
			t.Fatalf("readable logs: gate %d (%s), want 0", v, why)
		}

		other := &synth.Codex{ThreadID: "0c0dec0d-0000-4000-8000-00000000c0df", Cwd: "/home/dev/src/web", Model: "gpt-5.1-codex"}
		hidden := filepath.Join(filepath.Dir(w.codexPath), "rollout-"+now.UTC().Format("2006-01-02T15-04-05")+"-"+other.ThreadID+".jsonl")
		w.write(hidden, other.Meta(now.Add(-time.Minute)))
		w.write(hidden, other.TokenCount(now.Add(-30*time.Second), synth.Usage{Input: 9000, Output: 700},
			&synth.Window{UsedPercent: 97, WindowMinutes: 300, ResetsAt: w.codexReset}, nil))
		if err := os.Chmod(hidden, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(hidden, 0o644) })
		if f, err := os.Open(hidden); err == nil {
			f.Close()
			t.Skip("this user reads a 0000 file")
		}
		ev = env.Evaluate(t.Context(), EvalOptions{Now: clock})
		v, why := burn.Gate(ev.Snapshot)
		if v != burn.CannotTell || !strings.Contains(why, filepath.Base(hidden)) {
			t.Errorf("a recent log unreadable: gate %d (%s), want 3 naming it; line %q", v, why, text.Line(ev.Snapshot, time.UTC))
		}
	})
}
