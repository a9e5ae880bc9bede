package runway

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/quota"
)

// Faults that need a process of their own: the test binary runs one test
// again as a child (stopped by a signal, in a user namespace with its own
// inotify limit, or as another user), and the child does the asserting.

const (
	childEnv    = "RUNWAY_FAULT_CHILD" // which fault the child plays
	childDirEnv = "RUNWAY_FAULT_DIR"   // the folder the parent prepared
)

// inChild reports whether this test runs as the child for fault.
func inChild(fault string) (string, bool) {
	if os.Getenv(childEnv) != fault {
		return "", false
	}
	return os.Getenv(childDirEnv), true
}

// child runs test again in a process of its own, as attr says; during
// is called once the child printed READY. The child's failure fails t
// with its output.
func child(t *testing.T, exe, test, fault, dir string, attr *syscall.SysProcAttr, during func(p *os.Process)) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.v", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), childEnv+"="+fault, childDirEnv+"="+dir)
	cmd.SysProcAttr = attr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) {
			skipUnlessCI(t, "cannot start the child (%v): the kernel or its policy forbids it here", err)
		}
		t.Fatal(err)
	}
	var output strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		output.WriteString(line + "\n")
		if line == "READY" && during != nil {
			during(cmd.Process)
		}
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	text := output.String()
	if strings.Contains(text, "--- SKIP") {
		skipUnlessCI(t, "the child skipped:\n%s", text)
	}
	if err != nil || !strings.Contains(text, "--- PASS") {
		t.Fatalf("child %s: %v\n%s", fault, err, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "faults_") && strings.Contains(line, ".go:") {
			t.Log("child: " + strings.TrimSpace(line))
		}
	}
}

// The kernel drops file events: the follower falls back to rescans, says
// so, and still sees new lines.
func TestFaultWatchOverflow(t *testing.T) {
	if dir, ok := inChild("overflow"); ok {
		w := newWorldIn(t, dir)
		env := w.env()
		l := startLive(t, env, w.start.Add(time.Hour), nil)
		l.stillRunning(w) // followed by watch events
		fmt.Println("READY")
		if !l.waitFor("the overflow warning", hasWarning("session logs: rescan fallback", "queue overflow")) {
			t.Fatalf("warnings %q", l.e.Latest().Warnings)
		}
		t.Logf("snapshot warning: %q", findWarning(l.e.Latest().Warnings, "queue overflow"))
		requireDoctor(t, env, l.clock.Now, false, markWarn, "tray warning", "queue overflow")
		l.stillRunning(w) // followed by polling now
		return
	}
	queued := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		queued, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if queued > 200000 {
		skipUnlessCI(t, "max_queued_events is %d: too many files to flood", queued)
	}
	dir := t.TempDir()
	flood := filepath.Join(dir, "claude", "projects", "-home-dev-src-flood")
	if err := os.MkdirAll(flood, 0o755); err != nil {
		t.Fatal(err)
	}
	child(t, os.Args[0], "TestFaultWatchOverflow", "overflow", dir, nil, func(p *os.Process) {
		// Stopped, the child reads no events: more than the kernel queues
		// overflow it.
		if err := p.Signal(syscall.SIGSTOP); err != nil {
			t.Error(err)
			return
		}
		defer p.Signal(syscall.SIGCONT)
		for i := range queued + 1000 {
			f, err := os.Create(filepath.Join(flood, fmt.Sprintf("flood-%06d.txt", i)))
			if err != nil {
				t.Error(err)
				return
			}
			f.Close()
		}
	})
}

// The system's inotify watch limit is too low for the folders: the
// follower falls back to rescans, the sample log is read at each refresh,
// both said, and new lines and samples still arrive. The child runs in a
// user namespace whose own limit it lowers: nothing outside it changes.
func TestFaultWatchLimit(t *testing.T) {
	if dir, ok := inChild("watchlimit"); ok {
		w := newWorldIn(t, dir)
		for i := range 6 {
			w.write(filepath.Join(w.claudeDir, "projects", fmt.Sprintf("-home-dev-src-p%d", i), "s.jsonl"), w.claude.User(w.start, 10))
		}
		if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte("3\n"), 0o644); err != nil {
			skipUnlessCI(t, "cannot lower the namespace's inotify watch limit: %v", err)
		}
		env := w.env()
		now := w.start.Add(time.Hour)
		w.claudeTurn(now.Add(-time.Minute))
		l := startLive(t, env, now, func(o *EngineOptions) { o.ActiveRefresh = 200 * time.Millisecond })
		if !l.waitFor("the watch-limit warning", hasWarning("session logs: rescan fallback", "watch limit")) {
			t.Fatalf("warnings %q", l.e.Latest().Warnings)
		}
		t.Logf("snapshot warning: %q", findWarning(l.e.Latest().Warnings, "watch limit"))
		requireDoctor(t, env, l.clock.Now, false, markWarn, "tray warning", "watch limit")
		l.stillRunning(w)
		// A statusline sample: seen whether or not the state folder got
		// one of the three watches.
		log, err := quota.OpenLog(env.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		s := burn.Sample{ObservedAt: now.Add(-time.Second).UTC(), Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
			UsedPercent: 41.5, ResetsAt: now.Add(time.Hour).UTC(), Source: burn.SourceStatusline}
		log.Append(s)
		l.waitFor("the new statusline sample", func(snap burn.Snapshot) bool {
			return len(snap.Providers) > 0 && snap.Providers[0].Window != nil && snap.Providers[0].Window.UsedPercent == 41.5
		})
		return
	}
	dir := t.TempDir()
	child(t, os.Args[0], "TestFaultWatchLimit", "watchlimit", dir, &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}, nil)
}

// Unreadable folders and files, and a FIFO where a transcript should be:
// each named in a warning and in doctor, the readable sessions still
// counted, nothing blocks. Root reads everything, so as root the test runs
// its checks as nobody.
func TestFaultUnreadable(t *testing.T) {
	check := func(t *testing.T, dir string) {
		w := newWorldIn(t, dir)
		env := w.env()
		now := w.start.Add(time.Hour)
		w.claudeTurn(now.Add(-10 * time.Second))
		projects := filepath.Join(w.claudeDir, "projects")
		locked := filepath.Join(projects, "-home-dev-src-locked")
		w.write(filepath.Join(locked, "a.jsonl"), w.claude.User(now, 10))
		secret := filepath.Join(filepath.Dir(w.claudePath), "secret.jsonl")
		w.write(secret, w.claude.User(now, 10))
		fifo := filepath.Join(filepath.Dir(w.claudePath), "fifo.jsonl")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		// A link to a log in the locked folder: it cannot be followed, which
		// must be said, not taken for a dangling link.
		link := filepath.Join(filepath.Dir(w.claudePath), "linked.jsonl")
		if err := os.Symlink(filepath.Join(locked, "a.jsonl"), link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{locked, secret} {
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(p, 0o755) })
		}
		if f, err := os.Open(secret); err == nil {
			f.Close()
			t.Skip("this user reads a file with mode 000")
		}
		ev := env.Evaluate(t.Context(), EvalOptions{At: now})
		t.Logf("as uid %d, runway now warns: %q", os.Geteuid(), ev.Tail.Warnings)
		for _, want := range []string{"read " + locked + ": permission denied", "open " + secret + ": permission denied",
			"read " + link + ": permission denied"} {
			if findWarning(ev.Tail.Warnings, want) == "" && findWarning(ev.Snapshot.Warnings, want) == "" {
				t.Errorf("runway now: no warning %q in %q / %q", want, ev.Tail.Warnings, ev.Snapshot.Warnings)
			}
		}
		if len(ev.Snapshot.Sessions) != 1 || ev.Snapshot.Sessions[0].ID != w.claude.SessionID {
			t.Errorf("runway now: sessions %+v, want the readable one", ev.Snapshot.Sessions)
		}
		requireDoctor(t, env, func() time.Time { return now }, false, markWarn, "warning", "permission denied")
		l := startLive(t, env, now, nil)
		l.sameAsReplay("with unreadable files")
		l.stillRunning(w)
	}
	asNobodyIfRoot(t, "TestFaultUnreadable", "unreadable", check)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// A full disk under the state folder: the snapshot cannot be shared, which
// the snapshot and doctor say; the engine keeps following. A tmpfs of
// 64 KiB is the full disk, mounted only when allowed (root, and CI=true or
// RUNWAY_TEST_MOUNT=1); a file where the folder should be stands in
// otherwise.
func TestFaultStateDiskFull(t *testing.T) {
	t.Run("not a folder", func(t *testing.T) {
		w := newWorld(t)
		env := w.env()
		env.StateDir = filepath.Join(w.dir, "state-is-a-file")
		if err := os.WriteFile(env.StateDir, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		diskFull(t, w, env, "is not a folder")
	})
	t.Run("tmpfs full", func(t *testing.T) {
		if os.Geteuid() != 0 || (os.Getenv("CI") != "true" && os.Getenv("RUNWAY_TEST_MOUNT") != "1") {
			t.Skip("mounts a tmpfs: needs root and CI=true or RUNWAY_TEST_MOUNT=1")
		}
		w := newWorld(t)
		env := w.env()
		if err := syscall.Mount("tmpfs", w.stateDir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
			skipUnlessCI(t, "cannot mount a tmpfs: %v", err)
		}
		t.Cleanup(func() {
			if err := syscall.Unmount(w.stateDir, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", w.stateDir, err)
			}
		})
		// Runway's sample log is there, then the disk fills up.
		log, err := quota.OpenLog(env.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		now := w.start.Add(time.Hour)
		log.Append(burn.Sample{ObservedAt: now.Add(-time.Minute).UTC(), Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
			UsedPercent: 33.3, ResetsAt: now.Add(time.Hour).UTC(), Source: burn.SourceStatusline})
		f, err := os.Create(filepath.Join(env.StateDir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := f.Write(make([]byte, 4096)); err != nil {
				break
			}
		}
		f.Close()
		diskFull(t, w, env, "no space left on device")
		l := startLive(t, env, now, nil)
		l.waitFor("the logged sample", func(s burn.Snapshot) bool {
			return len(s.Providers) > 0 && s.Providers[0].Window != nil && s.Providers[0].Window.UsedPercent == 33.3
		})
	})
}

func diskFull(t *testing.T, w *world, env Env, why string) {
	now := w.start.Add(time.Hour)
	w.claudeTurn(now.Add(-5 * time.Second))
	l := startLive(t, env, now, nil)
	if !l.waitFor("the snapshot-write warning", hasWarning("cannot write the snapshot", why)) {
		t.Logf("warnings %q", l.e.Latest().Warnings)
	}
	requireDoctor(t, env, l.clock.Now, false, markProblem, "state", why)
	l.stillRunning(w)
	// What the files say is still the same as a cold read's.
	want := replay(env, now)
	var diff []string
	for _, d := range snapshotDiff(l.e.Latest(), want) {
		if !strings.HasPrefix(d, ".warnings") {
			diff = append(diff, d)
		}
	}
	if len(diff) > 0 {
		t.Errorf("with the state folder full, live differs from replay:\n  %s", strings.Join(diff, "\n  "))
	}
}

// skipUnlessCI skips a fault test whose setup this machine refuses; in CI,
// which runs as root on a kernel that allows it, the refusal is a failure:
// a fault test must not vanish silently there.
func skipUnlessCI(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: "+format, args...)
	}
	t.Skipf(format, args...)
}
