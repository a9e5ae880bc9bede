package runway

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/longproof"
	"github.com/agentrunway/runway/internal/synth"
)

// Resource ceilings: what the engine holds and reads must follow the data
// inside its window, not the history. The structural claims are asserted;
// the timings are reported.

// oldHistory leaves days of Codex rollouts and Claude transcripts older
// than any lookback under the roots: sparse files of size bytes each (the
// engine must not open them, so their content does not matter), dated by
// folder and modification time.
func oldHistory(t testing.TB, claudeDir, codexDir string, end time.Time, days, perDay int, size int64) (files int, bytes int64) {
	t.Helper()
	for d := 1; d <= days; d++ {
		day := end.Add(-time.Duration(d) * 24 * time.Hour).UTC()
		dir := filepath.Join(codexDir, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		project := filepath.Join(claudeDir, "projects", fmt.Sprintf("-home-dev-src-old-%03d", d%97))
		for _, p := range []string{dir, project} {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for i := range perDay {
			var path string
			if i%2 == 0 {
				path = filepath.Join(dir, fmt.Sprintf("rollout-%s-%08x-0000-4000-8000-%012x.jsonl", day.Format("2006-01-02T15-04-05"), d, i))
			} else {
				path = filepath.Join(project, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", d, i))
			}
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(size); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(path, day, day); err != nil {
				t.Fatal(err)
			}
			files++
			bytes += size
		}
	}
	return files, bytes
}

// bigActive writes an active Claude session of about size bytes whose
// lines inside the lookback are the last window bytes: a sparse hole, a
// few MB of lines from before the window, then the window's. It returns
// the bytes stamped inside the window.
func bigActive(t testing.TB, claudeDir string, now time.Time, lookback time.Duration, size, window int64) int64 {
	t.Helper()
	c := &synth.Claude{SessionID: "b16b16b1-0000-4000-8000-000000000b16", Cwd: "/home/dev/src/big", Model: "claude-opus-4-5-20251101"}
	path := filepath.Join(claudeDir, "projects", "-home-dev-src-big", c.SessionID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var before, inside bytes.Buffer
	n := 0
	write := func(buf *bytes.Buffer, at time.Time) {
		n++
		buf.Write(c.User(at.Add(-10*time.Second), 2000))
		for _, l := range c.Response(at, fmt.Sprintf("msg_01BIG%07d", n), fmt.Sprintf("req_011CBIG%07d", n),
			synth.Usage{Input: 5, Output: 700, CacheCreation: 800, CacheRead: 60000}, 2, "tool_use") {
			buf.Write(l)
		}
	}
	from := now.Add(-lookback)
	for at := from.Add(-time.Hour); before.Len() < 4<<20; at = at.Add(time.Second) {
		write(&before, at)
	}
	// Spread the window's lines over the lookback, newest last.
	per := int64(0)
	{
		var probe bytes.Buffer
		write(&probe, now)
		per = int64(probe.Len())
	}
	count := max(window/per, 1)
	step := lookback / time.Duration(count+1)
	for i := int64(1); i <= count; i++ {
		write(&inside, from.Add(time.Duration(i)*step))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hole := max(size-int64(before.Len()+inside.Len()), 0)
	if _, err := f.WriteAt(append([]byte("\n"), before.Bytes()...), hole); err != nil {
		t.Fatal(err)
	}
	// WriteAt does not move the file's offset: the window's lines go after
	// the old ones by position, not by a plain Write (which would put them
	// at the start).
	if _, err := f.WriteAt(inside.Bytes(), hole+1+int64(before.Len())); err != nil {
		t.Fatal(err)
	}
	return int64(inside.Len())
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// procStatus reads a field of /proc/self/status in kB (0 where there is
// none).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// coldStart runs an engine over env until its first snapshot and returns
// what it holds and what it read.
func coldStart(t *testing.T, env Env, now time.Time) (heap uint64, read int64, sessions int) {
	t.Helper()
	base := heapInUse()
	l := startLive(t, env, now, nil)
	l.waitFor("sessions", func(s burn.Snapshot) bool { return len(s.Sessions) > 0 })
	h := heapInUse()
	st := l.e.tail.Stats()
	sessions = len(l.e.Latest().Sessions)
	l.stop()
	if h < base {
		return 0, st.BytesRead, sessions
	}
	return h - base, st.BytesRead, sessions
}

func TestCeilingHistorySize(t *testing.T) {
	longproof.Skip(t)
	const lookback = 6 * time.Hour
	size, window := int64(200<<20), int64(2<<20)
	days := 40
	if testing.Short() {
		size, days = 20<<20, 10
	}
	run := func(days int) (heap uint64, read, inside int64, files int, apparent int64, sessions int) {
		dir := t.TempDir()
		now := playStart(0)
		agents, err := synth.NewAgents(dir, synth.AgentsOptions{Sessions: 10, Start: now.Add(-40 * time.Minute), Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := agents.Play(now); err != nil {
			t.Fatal(err)
		}
		files, apparent = oldHistory(t, agents.ClaudeDir(), agents.CodexDir(), now, days, 6, 20<<20)
		inside = bigActive(t, agents.ClaudeDir(), now, lookback, size, window)
		env := playEnv(agents, lookback)
		heap, read, sessions = coldStart(t, env, now)
		return heap, read, inside + agents.Stats().Bytes, files + 11, apparent + size, sessions
	}
	h1, r1, in1, f1, a1, s1 := run(days)
	h10, r10, in10, f10, a10, s10 := run(10 * days)
	t.Logf("history %d files, %.1f GB apparent: heap %.1f MB after a cold start, %.1f MB read (%.1f MB inside the window), %d sessions",
		f1, float64(a1)/1e9, float64(h1)/1e6, float64(r1)/1e6, float64(in1)/1e6, s1)
	t.Logf("history %d files, %.1f GB apparent: heap %.1f MB after a cold start, %.1f MB read (%.1f MB inside the window), %d sessions",
		f10, float64(a10)/1e9, float64(h10)/1e6, float64(r10)/1e6, float64(in10)/1e6, s10)
	// Ten times the history: neither the heap nor the bytes read follow it.
	if h10 > 2*h1+8<<20 {
		t.Errorf("heap after a cold start: %d bytes with %d old files, %d with %d: grows with the history", h10, f10, h1, f1)
	}
	for _, c := range []struct {
		read, inside int64
	}{{r1, in1}, {r10, in10}} {
		// The window's bytes, plus the probes that find where it starts
		// (a few 512 KiB steps per file).
		if c.read > 2*c.inside+16<<20 {
			t.Errorf("a cold start read %d bytes for %d inside the window", c.read, c.inside)
		}
	}
}

// quantile is the q-th quantile of sorted durations.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(d)))) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// prober writes a line of its own session and times how long the engine
// takes to show it: line written → snapshot updated.
type prober struct {
	c    *synth.Claude
	path string

	mu      sync.Mutex
	pending time.Time // the probe line's stamp
	written time.Time // when it was written (wall clock)
	done    chan time.Duration
	n       int
}

func newProber(claudeDir string) *prober {
	c := &synth.Claude{SessionID: "9808e000-0000-4000-8000-0000000009e0", Cwd: "/home/dev/src/probe", Model: "claude-haiku-4-5-20251001"}
	return &prober{c: c, path: filepath.Join(claudeDir, "projects", "-home-dev-src-probe", c.SessionID+".jsonl"),
		done: make(chan time.Duration, 1)}
}

// seen is the engine's OnSnapshot hook.
func (p *prober) seen(s burn.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending.IsZero() {
		return
	}
	for _, ss := range s.Sessions {
		if ss.ID == p.c.SessionID && !ss.LastEventAt.Before(p.pending) {
			p.pending = time.Time{}
			p.done <- time.Since(p.written)
			return
		}
	}
}

// probe writes one response stamped at (play time) and waits for it to be
// shown; false when it never was.
func (p *prober) probe(t testing.TB, at time.Time) (time.Duration, bool) {
	p.n++
	line := p.c.Response(at, fmt.Sprintf("msg_01PROBE%06d", p.n), fmt.Sprintf("req_011CPROBE%06d", p.n),
		synth.Usage{Input: 3, Output: 50, CacheCreation: 10, CacheRead: 100}, 1, "tool_use")[0]
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.pending = at.Truncate(time.Millisecond) // the line's stamp has milliseconds
	p.written = time.Now()
	p.mu.Unlock()
	appendBytes(t, p.path, line)
	select {
	case d := <-p.done:
		return d, true
	case <-time.After(catchUp):
		p.mu.Lock()
		p.pending = time.Time{}
		p.mu.Unlock()
		return 0, false
	}
}

func TestCeilingAppendCost(t *testing.T) {
	longproof.Skip(t)
	sessions, length := 20, 30*time.Minute
	probes := 12
	if testing.Short() {
		length, probes = 10*time.Minute, 5
	}
	start := playStart(length)
	agents, err := synth.NewAgents(t.TempDir(), synth.AgentsOptions{Sessions: sessions, Start: start, Seed: 11, SplitEvery: 9})
	if err != nil {
		t.Fatal(err)
	}
	env := playEnv(agents, 6*time.Hour)
	p := newProber(agents.ClaudeDir())
	// The engine as the tray runs it: production debounce and refreshes.
	l := startLive(t, env, start, func(o *EngineOptions) {
		o.Debounce, o.MinSpacing, o.ActiveRefresh, o.IdleRefresh = 0, 0, 0, 0
	})
	l.mu.Lock()
	l.onSnap = p.seen
	l.mu.Unlock()

	// CPU per appended MB: play at full speed, then wait for the engine to
	// show the last line.
	before := cpuTime()
	play := &playRun{agents: agents, l: l, sessions: map[string]bool{}}
	if err := play.advance(start.Add(length), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	play.checkpoint("after the append burst")
	cpu := cpuTime() - before
	st := agents.Stats()
	mb := float64(st.Bytes) / 1e6
	t.Logf("appended %.1f MB (%d lines, %d sessions) in a burst: process CPU %v, %.0f ms per MB (writer, engine and one cold replay together)",
		mb, st.Lines, st.ClaudeSessions+st.Codex, cpu.Round(time.Millisecond), float64(cpu.Milliseconds())/mb)

	// Update latency with the production debounce (250 ms): each probe
	// line written, then the snapshot that shows it.
	var lat []time.Duration
	now := start.Add(length)
	for i := range probes {
		at := now.Add(time.Duration(i+1) * time.Second)
		l.clock.Set(at)
		d, ok := p.probe(t, at)
		if !ok {
			t.Errorf("probe %d: never shown", i)
			continue
		}
		lat = append(lat, d)
	}
	slices.Sort(lat)
	t.Logf("update latency over %d probes (debounce 250 ms, at most one recompute a second): median %v, p99 %v; RSS %d MB (peak %d MB), heap %.1f MB",
		len(lat), quantile(lat, 0.5).Round(time.Millisecond), quantile(lat, 0.99).Round(time.Millisecond),
		procStatus("VmRSS")>>10, procStatus("VmHWM")>>10, float64(heapInUse())/1e6)
}
