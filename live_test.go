package runway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/longproof"
	"github.com/agentrunway/runway/internal/synth"
)

type playRun struct {
	agents      *synth.Agents
	l           *live
	checkpoints int
	sessions    map[string]bool // every session a snapshot listed
	// Bytes of session logs `runway now` read at the checkpoints, with the
	// index and without.
	indexRead, coldRead int64
}

func (p *playRun) checkpoint(label string) burn.Snapshot {
	p.checkpoints++
	s := p.l.sameAsReplay(label)
	p.indexedAsCold(label)
	for _, ss := range s.Sessions {
		p.sessions[string(ss.Provider)+"/"+ss.ID] = true
	}
	return s
}

// indexedAsCold checks that `runway now` at the clock's instant answers the
// same with the index the previous checkpoint's run left in the state
// folder as without one.
func (p *playRun) indexedAsCold(label string) {
	t := p.l.t
	t.Helper()
	at := p.l.clock.Now()
	o := EvalOptions{Now: func() time.Time { return at }}
	cold := p.l.env
	cold.NoIndex = true
	c := cold.Evaluate(context.Background(), o)
	want := c.Snapshot
	p.coldRead += c.Tail.BytesRead
	ev := p.l.env.Evaluate(context.Background(), o)
	if diff := snapshotDiff(ev.Snapshot, want); len(diff) > 0 {
		t.Errorf("%s: with the index, now differs from a cold read:\n  %s", label, strings.Join(diff, "\n  "))
	}
	p.indexRead += ev.Tail.BytesRead
}

// advance plays up to t in steps, the engine's clock following the play.
func (p *playRun) advance(t time.Time, step time.Duration) error {
	for now := p.agents.Now(); now.Before(t); {
		if now = now.Add(step); now.After(t) {
			now = t
		}
		p.l.clock.Set(now)
		if err := p.agents.Play(now); err != nil {
			return err
		}
	}
	return nil
}

func TestLiveEqualsReplay(t *testing.T) {
	longproof.Skip(t)
	const (
		sessions = 20
		length   = 80 * time.Minute
		every    = 8 * time.Minute
	)
	start := playStart(length)
	agents, err := synth.NewAgents(t.TempDir(), synth.AgentsOptions{
		Sessions:      sessions,
		Start:         start,
		Seed:          7,
		DayTurnsAfter: 35 * time.Minute,
		SplitEvery:    7,
		ChurnEvery:    4 * time.Minute,
		ResumeAfter:   25 * time.Minute,
		BurnPerHour:   75,
	})
	if err != nil {
		t.Fatal(err)
	}
	// A short lookback, so checkpoints late in the play see cold reads
	// start mid-file and the follower prune.
	env := playEnv(agents, time.Hour)
	l := startLive(t, env, start, nil)
	p := &playRun{agents: agents, l: l, sessions: map[string]bool{}}
	p.checkpoint("empty history")

	// Checkpoints land at odd instants: inside streamed responses, between
	// the halves of a split line, right after a truncation.
	for at := start.Add(every + 17*time.Second); at.Before(start.Add(length)); at = at.Add(every) {
		if err := p.advance(at, 3*time.Second); err != nil {
			t.Fatal(err)
		}
		p.checkpoint(fmt.Sprintf("t+%v", at.Sub(start)))
		if t.Failed() {
			break
		}
	}
	st := agents.Stats()
	t.Logf("played %v: %d Claude + %d Codex sessions (%d subagents), %d lines, %d KB; %d split lines, truncated %d, replaced %d, rewritten %d, deleted %d, resumed %d turns, %d new day folders, %d statusline samples, %d limit hits, claude 5h at %.1f%%, codex 5h at %.1f%%; %d checkpoints, %d sessions seen live, live equalled replay at each: %v",
		length, st.ClaudeSessions, st.Codex, st.Subagents, st.Lines, st.Bytes>>10, st.Split, st.Truncated, st.Replaced, st.Rewritten, st.Deleted, st.Resumed, st.DayFolders, st.Samples, st.LimitHits, st.ClaudeUsed, st.CodexUsed, p.checkpoints, len(p.sessions), !t.Failed())
	t.Logf("runway now at the checkpoints read %d KB of logs with the index, %d KB without", p.indexRead>>10, p.coldRead>>10)
	// The play must have exercised what it claims to.
	for name, n := range map[string]int{"split lines": st.Split, "truncations": st.Truncated, "replacements": st.Replaced,
		"rewrites": st.Rewritten, "deletions": st.Deleted, "resumed turns": st.Resumed, "new day folders": st.DayFolders,
		"subagents": st.Subagents, "statusline samples": st.Samples, "limit hits": st.LimitHits} {
		if n == 0 {
			t.Errorf("the play had no %s", name)
		}
	}
	if len(p.sessions) < sessions {
		t.Errorf("snapshots listed %d sessions, want at least %d", len(p.sessions), sessions)
	}
}
