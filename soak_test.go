package runway

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/internal/longproof"
	"github.com/agentrunway/runway/internal/synth"
)

// The soak: the engine as the tray runs it (production debounce and
// refreshes), followed for as long as asked while a crowd of agents plays
// in real time over a multi-GB history, with live-equals-replay
// checkpoints and the figures a person wants: sessions, lines, RSS, CPU,
// update latency.
//
//	go test -run TestSoak -soak=1h -timeout 75m -v .
//
// Without -soak it plays a few seconds (a smoke test of the soak itself).
var (
	soakFor      = flag.Duration("soak", 0, "soak: how long to run (e.g. 1h); 0 plays a few seconds")
	soakSessions = flag.Int("soak.sessions", 200, "soak: sessions at once")
	soakSpeed    = flag.Float64("soak.speed", 1, "soak: play seconds per real second")
	soakEvery    = flag.Duration("soak.every", 2*time.Minute, "soak: real time between live-equals-replay checkpoints")
	soakHistory  = flag.Float64("soak.history", 4, "soak: GB of old history (sparse files) under the roots")
	soakDir      = flag.String("soak.dir", "", "soak: play into this folder (kept) instead of a temporary one")
)

func TestSoak(t *testing.T) {
	if *soakFor == 0 {
		longproof.Skip(t) // the smoke run; -soak=1h asks for the soak itself
	}
	length, sessions, speed, every, history := *soakFor, *soakSessions, *soakSpeed, *soakEvery, *soakHistory
	if length == 0 {
		if testing.Short() {
			t.Skip("the soak's smoke run is not short")
		}
		length, sessions, speed, every, history = 3*time.Second, 20, 120, time.Second, 0.2
	}
	if d, ok := t.Deadline(); ok && time.Until(d) < length+5*time.Minute {
		t.Fatalf("-soak=%v needs a longer test timeout: add -timeout %v", length, (length + 10*time.Minute).Round(time.Minute))
	}
	dir := *soakDir
	if dir == "" {
		dir = t.TempDir()
	}
	const lookback = 6 * time.Hour
	played := time.Duration(float64(length) * speed)
	start := playStart(played)
	agents, err := synth.NewAgents(dir, synth.AgentsOptions{
		Sessions:      sessions,
		Start:         start,
		Seed:          uint64(time.Now().UnixNano()),
		DayTurnsAfter: played / 2,
		SplitEvery:    9,
		ChurnEvery:    5 * time.Minute,
		ResumeAfter:   played / 3,
		BurnPerHour:   30,
	})
	if err != nil {
		t.Fatal(err)
	}
	perFile := int64(64 << 20)
	days := max(1, int(history*1e9/float64(perFile)/6))
	oldFiles, oldBytes := oldHistory(t, agents.ClaudeDir(), agents.CodexDir(), start, days, 6, perFile)
	bigActive(t, agents.ClaudeDir(), start, lookback, 212<<20, 8<<20)

	env := playEnv(agents, lookback)
	p := newProber(agents.ClaudeDir())
	// The tray's engine: production debounce, refreshes and polling.
	l := startLive(t, env, start, func(o *EngineOptions) {
		o.Debounce, o.MinSpacing, o.ActiveRefresh, o.IdleRefresh, o.PollEvery = 0, 0, 0, 0, 0
	})
	l.mu.Lock()
	l.onSnap = p.seen
	l.mu.Unlock()
	run := &playRun{agents: agents, l: l, sessions: map[string]bool{}}

	var (
		lat              []time.Duration
		missed           int
		checkpointCPU    time.Duration
		writerTime       time.Duration
		heapMax          int64
		lastCheck        = time.Now()
		lastProbe        time.Time
		began            = time.Now()
		cpuBegan         = cpuTime()
		paused           time.Duration
		equal, different int
	)
	report := func(final bool) {
		st := agents.Stats()
		elapsed := time.Since(began)
		cpu := cpuTime() - cpuBegan - checkpointCPU
		slices.Sort(lat)
		mb := float64(st.Bytes) / 1e6
		line := fmt.Sprintf("soak %v (played %v at %gx): %d Claude + %d Codex sessions (%d subagents, %d at once), %d lines, %.1f MB appended over %d old files (%.1f GB) and a 212 MB active session; "+
			"RSS %d MB (peak %d MB), heap %.1f MB (max %.1f MB); CPU %v (%.1f%% of a core; %.0f ms per appended MB, writer's %v included); "+
			"latency p50 %v p99 %v max %v over %d probes (%d never shown); checkpoints %d, live equalled replay at %d",
			elapsed.Round(time.Second), agents.Now().Sub(start).Round(time.Second), speed, st.ClaudeSessions, st.Codex, st.Subagents, sessions,
			st.Lines, mb, oldFiles, float64(oldBytes)/1e9,
			procStatus("VmRSS")>>10, procStatus("VmHWM")>>10, float64(heapInUse())/1e6, float64(heapMax)/1e6,
			cpu.Round(time.Millisecond), 100*cpu.Seconds()/elapsed.Seconds(), float64(cpu.Milliseconds())/max(mb, 0.001), writerTime.Round(time.Millisecond),
			quantile(lat, 0.5).Round(time.Millisecond), quantile(lat, 0.99).Round(time.Millisecond), quantile(lat, 1).Round(time.Millisecond), len(lat), missed,
			run.checkpoints, equal)
		if final {
			t.Log(line)
		} else {
			fmt.Fprintln(os.Stderr, line)
		}
	}
	for time.Since(began) < length {
		now := start.Add(time.Duration(float64(time.Since(began)-paused) * speed))
		l.clock.Set(now)
		w := time.Now()
		if err := agents.Play(now); err != nil {
			t.Fatal(err)
		}
		writerTime += time.Since(w)
		if time.Since(lastProbe) > 2*time.Second {
			lastProbe = time.Now()
			if d, ok := p.probe(t, now); ok {
				lat = append(lat, d)
			} else {
				missed++
				t.Logf("probe at %v never shown; the engine shows %d sessions as of %v, warnings %q", now, len(l.e.Latest().Sessions), l.e.Latest().At, l.e.Latest().Warnings)
			}
		}
		if time.Since(lastCheck) >= every {
			// Writes stop and the clock holds while live and replay
			// are compared.
			pause, cpu := time.Now(), cpuTime()
			failed := t.Failed()
			run.checkpoint(fmt.Sprintf("checkpoint %d at %v", run.checkpoints+1, now.Sub(start).Round(time.Second)))
			if t.Failed() == failed {
				equal++
			} else {
				different++
			}
			heapMax = max(heapMax, int64(heapInUse()))
			checkpointCPU += cpuTime() - cpu
			paused += time.Since(pause)
			lastCheck = time.Now()
			if *soakFor > 0 {
				report(false)
			}
			if different > 3 {
				t.Fatal("live differed from replay at more than three checkpoints")
			}
		}
		time.Sleep(50 * time.Millisecond) // pacing the play in real time, not a synchronisation
	}
	run.checkpoint("the end")
	if !t.Failed() {
		equal = run.checkpoints
	}
	report(true)
	if missed > 0 {
		t.Errorf("%d probe lines never shown", missed)
	}
	if strings.Contains(fmt.Sprint(l.e.Latest().Warnings), "rescan fallback") {
		t.Errorf("the follower fell back to rescans: %q", l.e.Latest().Warnings)
	}
}
