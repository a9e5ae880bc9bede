package quota

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// readLog is l.ReadAll for a log that must be readable.
func readLog(t testing.TB, l *Log, since time.Time) ([]burn.Sample, []string) {
	t.Helper()
	samples, warnings, err := l.ReadAll(since)
	if err != nil {
		t.Fatal(err)
	}
	return samples, warnings
}

func claude5h(at time.Time, pc float64, src burn.Source) burn.Sample {
	return burn.Sample{ObservedAt: at, Provider: burn.Claude, Window: burn.FiveHour, WindowMinutes: 300,
		UsedPercent: pc, ResetsAt: t0.Add(4 * time.Hour), Source: src}
}

// fillLog writes n samples into l's file as Append would, and says how many bytes.
func fillLog(tb testing.TB, l *Log, n int, sample func(i int) burn.Sample) int {
	tb.Helper()
	samples := make([]burn.Sample, n)
	for i := range samples {
		samples[i] = sample(i)
	}
	b, err := encodeSamples(samples)
	if err == nil {
		err = os.WriteFile(l.Path(), b, 0o600)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return len(b)
}

func TestLogRoundTripAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	l, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []burn.Sample{claude5h(t0, 37.4, burn.SourceStatusline), claude5h(t0.Add(time.Minute), 37.5, burn.SourceStatusline)}
	if err := l.Append(want...); err != nil {
		t.Fatal(err)
	}
	got, warns := readLog(t, l, time.Time{})
	if len(warns) != 0 || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("read %+v %v", got, warns)
	}
	if got, _ := readLog(t, l, t0.Add(time.Second)); len(got) != 1 || got[0] != want[1] {
		t.Fatalf("read since = %+v", got)
	}
	if runtime.GOOS != "windows" {
		for path, mode := range map[string]os.FileMode{dir: 0o700, l.Path(): 0o600} {
			fi, err := os.Stat(path)
			if err != nil || fi.Mode().Perm() != mode {
				t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), mode)
			}
		}
	}
	// The documented line shape.
	b, _ := os.ReadFile(l.Path())
	first := strings.SplitN(string(b), "\n", 2)[0]
	wantLine := `{"observed_at":"2026-12-01T03:50:00Z","provider":"claude","window":"5h","window_minutes":300,"used_percent":37.4,"resets_at":"2026-12-01T07:50:00Z","source":"statusline"}`
	if first != wantLine {
		t.Fatalf("line = %s\nwant   %s", first, wantLine)
	}
}

func TestLogReaderSurvivesTornLines(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "log", "torn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, LogName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, warns := readLog(t, l, time.Time{})
	// Line 1, and the sample a torn line ran into; garbage, a wrong type and
	// the torn last line are skipped.
	if len(got) != 2 || got[0].UsedPercent != 37.4 || got[1].UsedPercent != 37.5 {
		t.Fatalf("samples = %+v", got)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "skipped 3") {
		t.Fatalf("warnings = %q", warns)
	}
	// An append after the torn last line is not lost with it.
	if err := l.Append(claude5h(t0, 40, burn.SourceStatusline)); err != nil {
		t.Fatal(err)
	}
	got, _ = readLog(t, l, time.Time{})
	if len(got) != 3 || got[2].UsedPercent != 40 {
		t.Fatalf("after append: %+v", got)
	}
}

func TestLogReadMissingFile(t *testing.T) {
	l := &Log{path: filepath.Join(t.TempDir(), LogName)}
	if got, warns := readLog(t, l, time.Time{}); got != nil || warns != nil {
		t.Fatalf("%v %v", got, warns)
	}
}

func TestLogConcurrentProcessAppends(t *testing.T) {
	const procs, each = 4, 300
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), helperEnv+"=append", "RUNWAY_QUOTA_DIR="+dir,
			fmt.Sprintf("RUNWAY_QUOTA_N=%d", each), fmt.Sprintf("RUNWAY_QUOTA_P=%d", p))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := OpenLog(dir)
	got, warns := readLog(t, l, time.Time{})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	seen := map[burn.Sample]bool{}
	for _, s := range got {
		seen[s] = true
	}
	for p := range procs {
		for i := range each {
			if !seen[markedSample(p, i)] {
				t.Fatalf("process %d lost sample %d (%d lines read)", p, i, len(got))
			}
		}
	}
	if len(got) != procs*each {
		t.Fatalf("%d lines, want %d", len(got), procs*each)
	}
}

func TestRecordSkipsUnchangedRepeats(t *testing.T) {
	l, _ := OpenLog(t.TempDir())
	rec := func(at time.Time, pc float64) int {
		t.Helper()
		n, err := l.Record(at, []burn.Sample{claude5h(at, pc, burn.SourceStatusline)})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	steps := []struct {
		after time.Duration
		pc    float64
		want  int
	}{
		{0, 37.4, 1},                // first
		{time.Second, 37.4, 0},      // repeat
		{20 * time.Second, 37.4, 0}, // repeat
		{time.Second, 37.5, 1},      // moved
		{70 * time.Second, 37.5, 1}, // unchanged past the heartbeat
		{time.Second, 37.5, 0},
	}
	at := t0
	for i, s := range steps {
		at = at.Add(s.after)
		if n := rec(at, s.pc); n != s.want {
			t.Fatalf("step %d: appended %d, want %d", i, n, s.want)
		}
	}
	// Another source of the same window is its own series.
	n, _ := l.Record(at, []burn.Sample{claude5h(at, 37, burn.SourceOAuth)})
	if n != 1 {
		t.Fatalf("oauth sample: appended %d", n)
	}
	// A new window instance (another reset) is a change.
	s := claude5h(at.Add(time.Second), 37.5, burn.SourceStatusline)
	s.ResetsAt = s.ResetsAt.Add(5 * time.Hour)
	if n, _ := l.Record(at, []burn.Sample{s}); n != 1 {
		t.Fatalf("new window: appended %d", n)
	}
	// Invalid samples never reach the log.
	bad := claude5h(at, 101, burn.SourceStatusline)
	if n, _ := l.Record(at, []burn.Sample{bad, {}}); n != 0 {
		t.Fatalf("invalid samples appended: %d", n)
	}
}

func TestRecordReadsOnlyTheTail(t *testing.T) {
	l, _ := OpenLog(t.TempDir())
	// A large log whose tail still holds the newest sample.
	fillLog(t, l, 20000, func(i int) burn.Sample {
		s := markedSample(0, i)
		s.Provider, s.Source = burn.Codex, burn.SourceCodexLog
		return s
	})
	l.Append(claude5h(t0, 37.4, burn.SourceStatusline))
	newest, err := l.newest(t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if s := newest[seriesKey{burn.Claude, burn.FiveHour, burn.SourceStatusline, ""}]; s.UsedPercent != 37.4 {
		t.Fatalf("newest statusline = %+v", s)
	}
	if n, _ := l.Record(t0.Add(time.Second), []burn.Sample{claude5h(t0.Add(time.Second), 37.4, burn.SourceStatusline)}); n != 0 {
		t.Fatal("repeat appended")
	}
}

func TestCompactKeepsCurrentWindows(t *testing.T) {
	l, _ := OpenLog(t.TempDir())
	old := claude5h(t0, 10, burn.SourceStatusline)
	weekly := burn.Sample{ObservedAt: t0, Provider: burn.Codex, Window: burn.Weekly, WindowMinutes: 10080, UsedPercent: 4, Source: burn.SourceCodexRPC}
	older := weekly
	older.ObservedAt = t0.Add(-time.Hour)
	recent := claude5h(t0.Add(9*24*time.Hour), 20, burn.SourceStatusline)
	l.Append(older, old, weekly, recent, recent)
	f, _ := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("garbage\n")
	f.Close()

	now := t0.Add(10 * 24 * time.Hour)
	if err := l.Compact(now, 8*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	got, warns := readLog(t, l, time.Time{})
	// The old Claude sample is dropped (a newer one exists), the Codex weekly
	// one is kept as its series' newest; repeats and garbage go.
	if len(warns) != 0 || len(got) != 2 || got[0] != weekly || got[1] != recent {
		t.Fatalf("after compact: %+v %v", got, warns)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(l.Path()); fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", fi.Mode().Perm())
		}
	}
	// Appends after a compaction land in the new file.
	l.Append(claude5h(now, 21, burn.SourceStatusline))
	if got, _ := readLog(t, l, time.Time{}); len(got) != 3 {
		t.Fatalf("append after compact: %+v", got)
	}
}

// BenchmarkRecord: the statusline's cost must not grow with the log.
func BenchmarkRecord(b *testing.B) {
	for _, lines := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			l, _ := OpenLog(b.TempDir())
			fillLog(b, l, lines, func(i int) burn.Sample {
				return burn.Sample{ObservedAt: t0.Add(time.Duration(i) * time.Second), Provider: burn.Claude, Window: burn.FiveHour,
					WindowMinutes: 300, UsedPercent: float64(i%1000) / 10, Source: burn.SourceStatusline}
			})
			b.ResetTimer()
			for i := range b.N {
				at := t0.Add(time.Duration(lines+i) * time.Second)
				l.Record(at, []burn.Sample{claude5h(at, float64(i%2), burn.SourceStatusline)})
			}
		})
	}
}

func BenchmarkRead(b *testing.B) {
	l, _ := OpenLog(b.TempDir())
	size := fillLog(b, l, 50000, func(i int) burn.Sample {
		return burn.Sample{ObservedAt: t0.Add(time.Duration(i) * 10 * time.Second), Provider: burn.Claude, Window: burn.FiveHour,
			WindowMinutes: 300, UsedPercent: float64(i%1000) / 10, ResetsAt: t0, Source: burn.SourceStatusline}
	})
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		if got, _ := readLog(b, l, time.Time{}); len(got) != 50000 {
			b.Fatal(len(got))
		}
	}
}

// A sample stamped in the future (a clock stepped back) must not hide the
// same reading taken now as a repeat with a negative age.
// An append that opened the file before a compaction replaced it, and wrote
// after the compaction carried its lines over, is written again: as many
// times as compactions in a row replace the file under it.
func TestAppendOutlastsCompactionsInARow(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot replace a file another writer holds open")
	}
	dir := t.TempDir()
	l, _ := OpenLog(dir)
	l.Append(claude5h(t0, 10, burn.SourceStatusline))
	compactions := 3
	l.beforeWrite = func() {
		if compactions > 0 {
			compactions--
			if err := LogIn(dir).Compact(t0, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	mine := claude5h(t0.Add(time.Minute), 11, burn.SourceStatusline)
	if err := l.Append(mine); err != nil {
		t.Fatal(err)
	}
	if got, _ := readLog(t, l, time.Time{}); !slices.Contains(got, mine) {
		t.Fatalf("the append was lost under %d compactions: %+v", 3, got)
	}
}

func TestRecordAfterClockStepsBack(t *testing.T) {
	l, _ := OpenLog(t.TempDir())
	ahead := t0.Add(2 * time.Hour)
	if n, _ := l.Record(ahead, []burn.Sample{claude5h(ahead, 50, burn.SourceStatusline)}); n != 1 {
		t.Fatalf("future sample: appended %d", n)
	}
	for i := range 3 {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		n, err := l.Record(at, []burn.Sample{claude5h(at, 50, burn.SourceStatusline)})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]int{0: 1}[i]; n != want {
			t.Errorf("after the clock stepped back, record %d appended %d, want %d", i, n, want)
		}
	}
	got, _ := readLog(t, l, time.Time{})
	if len(got) != 2 || !got[1].ObservedAt.Equal(t0) {
		t.Errorf("log %+v, want the future line and the one at %v", got, t0)
	}
}

// Two logins' statuslines at one instant are two series: as one, the
// second was taken for a late repeat and never recorded.
func TestRecordKeepsTwoLoginsApart(t *testing.T) {
	l, _ := OpenLog(t.TempDir())
	for i := range 5 {
		at := t0.Add(time.Duration(i) * 30 * time.Second)
		work, home := claude5h(at, 30+float64(i)/10, burn.SourceStatusline), claude5h(at, 80+float64(i)/2, burn.SourceStatusline)
		work.Account, home.Account = AccountFingerprint("work"), AccountFingerprint("home")
		for _, s := range []burn.Sample{work, home} {
			if n, err := l.Record(at, []burn.Sample{s}); err != nil || n != 1 {
				t.Fatalf("step %d, login %s: recorded %d (%v), want 1", i, s.Account, n, err)
			}
		}
	}
	all, _, err := l.ReadAll(time.Time{})
	if err != nil || len(all) != 10 {
		t.Fatalf("log holds %d samples (%v), want 10", len(all), err)
	}
	// Compacting keeps each login's newest.
	if err := l.Compact(t0.Add(time.Hour), time.Minute); err != nil {
		t.Fatal(err)
	}
	kept, _, _ := l.ReadAll(time.Time{})
	if len(kept) != 2 || kept[0].Account == kept[1].Account {
		t.Errorf("compacted to %+v, want each login's newest", kept)
	}
}

// readRegular reads a file whole, up to its limit, whatever its size.
func TestReadRegularWholeFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 4<<20 + 7} {
		b := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		path := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readRegular(path, 8<<20)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("size %d: %d bytes, %v", size, len(got), err)
		}
		if got, err := readRegular(path, 100); err != nil || len(got) != min(size, 100) || !bytes.Equal(got, b[:len(got)]) {
			t.Fatalf("size %d, limit 100: %d bytes, %v", size, len(got), err)
		}
	}
}
