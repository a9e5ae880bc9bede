package synth

import (
	"bytes"
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
)

// AgentsOptions shape a crowd of agents.
type AgentsOptions struct {
	// Sessions is how many sessions run at once, about 60 % Claude and 40 %
	// Codex; each ends after a while and its agent starts a new one.
	Sessions int
	// Start is the play clock's first instant.
	Start time.Time
	Seed  uint64
	// DayTurnsAfter puts the local midnight of the Codex date folders this
	// long after Start, so a new day's folder appears while playing (the
	// zone is made up for it); zero keeps UTC dates.
	DayTurnsAfter time.Duration
	// SplitEvery: one line in this many is written in two parts, the second
	// up to a few seconds later (0: never).
	SplitEvery int
	// ChurnEvery is how often (play time) a session file is truncated,
	// replaced, rewritten in place or deleted, in turn; 0: never.
	ChurnEvery time.Duration
	// ResumeAfter is when an old Codex rollout, left days ago in an old date
	// folder, is resumed (appended to); 0: never.
	ResumeAfter time.Duration
	// BurnPerHour is the percent of the 5-hour window the Claude sessions
	// use per hour of play, all together (Codex: half of it); 0 is 24 %
	// (72 quota minutes per hour: runs out before the reset).
	BurnPerHour float64
}

// AgentStats count what the play wrote.
type AgentStats struct {
	Lines, Bytes          int64
	ClaudeSessions, Codex int // sessions started
	Subagents             int
	Split                 int // lines written in two parts
	Truncated, Replaced   int
	Rewritten, Deleted    int
	Resumed               int // appends to the old rollout
	Samples               int // statusline samples in the sample log
	LimitHits             int
	DayFolders            int     // Codex date folders made while playing
	ClaudeUsed, CodexUsed float64 // 5-hour window percent now
}

// Agents plays Claude Code and Codex sessions into a folder the way they
// reach a disk: lines appended (split across writes), files resumed,
// truncated, replaced and deleted, the account percent moving. After Play(t)
// no line is stamped after t, so evaluating as of t sees what a follower saw.
type Agents struct {
	o     AgentsOptions
	dir   string
	rng   *rand.Rand
	loc   *time.Location
	now   time.Time
	seq   int64
	queue opQueue
	files map[string]*playFile
	crowd []*agent
	stats AgentStats
	ids   int

	claude, codex account
	claudeTok     float64 // percent per weighted token
	codexTok      float64
	lastSample    time.Time

	nextChurn time.Time
	churn     int
	old       *Codex // the rollout left days ago
	oldPath   string
	days      map[string]bool
}

// account is one provider's 5-hour and weekly windows.
type account struct {
	used, weekly     float64
	reset, weekReset time.Time
	hit              bool // a limit-hit line was written for this window
}

// NewAgents prepares a play into dir: dir/claude (a Claude config dir),
// dir/codex (a Codex home) and dir/state (runway's state folder, where the
// statusline samples go). The old rollout to be resumed is written now,
// dated and modified three days before Start.
func NewAgents(dir string, o AgentsOptions) (*Agents, error) {
	if o.Sessions <= 0 {
		o.Sessions = 1
	}
	if o.BurnPerHour <= 0 {
		o.BurnPerHour = 24
	}
	a := &Agents{
		o:     o,
		dir:   dir,
		rng:   rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)),
		loc:   time.UTC,
		now:   o.Start,
		files: map[string]*playFile{},
		days:  map[string]bool{},
	}
	if o.DayTurnsAfter > 0 {
		mid := o.Start.Add(o.DayTurnsAfter).UTC()
		tod := mid.Sub(mid.Truncate(24 * time.Hour))
		off := -tod
		if off < -12*time.Hour {
			off += 24 * time.Hour
		}
		a.loc = time.FixedZone("play", int(off/time.Second))
	}
	a.claude = account{used: 30, weekly: 40, reset: o.Start.Add(3*time.Hour + 20*time.Minute), weekReset: o.Start.Add(4 * 24 * time.Hour)}
	a.codex = account{used: 12, weekly: 25, reset: o.Start.Add(4*time.Hour + 10*time.Minute), weekReset: o.Start.Add(5 * 24 * time.Hour)}
	// On average over its pauses a Claude session burns about 350
	// weighted tokens a second, a Codex one about 175.
	nClaude := max(1, o.Sessions*3/5)
	nCodex := max(1, o.Sessions-nClaude)
	a.claudeTok = o.BurnPerHour / (float64(nClaude) * 350 * 3600)
	a.codexTok = o.BurnPerHour / 2 / (float64(nCodex) * 175 * 3600)
	for _, d := range []string{a.ClaudeDir(), filepath.Join(a.CodexDir(), "sessions"), a.StateDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for i := range o.Sessions {
		ag := &agent{kind: burn.Codex}
		if i < nClaude {
			ag.kind = burn.Claude
		}
		// Staggered starts: not every session opens in the first second.
		ag.next = o.Start.Add(time.Duration(a.rng.Int64N(int64(90 * time.Second))))
		a.crowd = append(a.crowd, ag)
	}
	if o.ChurnEvery > 0 {
		a.nextChurn = o.Start.Add(o.ChurnEvery)
	}
	if o.ResumeAfter > 0 {
		if err := a.writeOld(); err != nil {
			return nil, err
		}
		a.crowd = append(a.crowd, &agent{kind: burn.Codex, resume: true, next: o.Start.Add(o.ResumeAfter)})
	}
	return a, nil
}

// ClaudeDir is the Claude config dir the play writes (projects/ inside).
func (a *Agents) ClaudeDir() string { return filepath.Join(a.dir, "claude") }

// CodexDir is the Codex home the play writes (sessions/ inside).
func (a *Agents) CodexDir() string { return filepath.Join(a.dir, "codex") }

// StateDir is runway's state folder: the statusline samples go into its
// sample log.
func (a *Agents) StateDir() string { return filepath.Join(a.dir, "state") }

// Now is the play clock: everything due up to it has been written.
func (a *Agents) Now() time.Time { return a.now }

// Stats count what was written so far.
func (a *Agents) Stats() AgentStats {
	s := a.stats
	s.ClaudeUsed, s.CodexUsed = a.claude.used, a.codex.used
	return s
}

// Play writes everything due up to until, in time order.
func (a *Agents) Play(until time.Time) error {
	for {
		at, what := until, 0
		if len(a.queue) > 0 && !a.queue[0].at.After(at) {
			at, what = a.queue[0].at, 1
		}
		var next *agent
		for _, ag := range a.crowd {
			if !ag.gone && !ag.next.After(at) && (next == nil || ag.next.Before(next.next)) {
				next = ag
			}
		}
		if next != nil {
			at, what = next.next, 2
		}
		if !a.nextChurn.IsZero() && !a.nextChurn.After(at) {
			at, what = a.nextChurn, 3
		}
		if what == 0 {
			break
		}
		if at.After(a.now) {
			a.now = at
		}
		var err error
		switch what {
		case 1:
			err = a.runOp()
		case 2:
			a.act(next)
		case 3:
			a.doChurn()
		}
		if err != nil {
			return err
		}
	}
	if until.After(a.now) {
		a.now = until
	}
	return nil
}

// playFile is one file's writes, run in order: a line split in two keeps
// the lines after it waiting for its second part.
type playFile struct {
	path string
	ops  []*op
	last time.Time // the latest time an op was scheduled at
	// session is over: the file may be deleted.
	done   bool
	claude *Claude // a transcript's writer
}

type op struct {
	at   time.Time
	line func() []byte // an append; nil for the others
	do   func() error
	tail bool // the second part of a split line: never split again
}

// entry is a file's first op in the queue; a stale entry (the file's head
// changed since) is skipped.
type entry struct {
	at   time.Time
	seq  int64
	f    *playFile
	head *op
}

type opQueue []entry

func (q opQueue) Len() int { return len(q) }
func (q opQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q opQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *opQueue) Push(x any)   { *q = append(*q, x.(entry)) }
func (q *opQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (a *Agents) file(path string) *playFile {
	f := a.files[path]
	if f == nil {
		f = &playFile{path: path}
		a.files[path] = f
	}
	return f
}

// schedule adds an op to path's writes, never before the ones already
// scheduled there.
func (a *Agents) schedule(path string, o *op) {
	f := a.file(path)
	if o.at.Before(f.last) {
		o.at = f.last
	}
	f.last = o.at
	f.ops = append(f.ops, o)
	if len(f.ops) == 1 {
		a.push(f)
	}
}

func (a *Agents) push(f *playFile) {
	a.seq++
	heap.Push(&a.queue, entry{at: f.ops[0].at, seq: a.seq, f: f, head: f.ops[0]})
}

func (a *Agents) appendAt(path string, at time.Time, line []byte) {
	a.schedule(path, &op{at: at, line: func() []byte { return line }})
}

// runOp runs the earliest op.
func (a *Agents) runOp() error {
	e := heap.Pop(&a.queue).(entry)
	f := e.f
	if len(f.ops) == 0 || f.ops[0] != e.head {
		return nil
	}
	o := f.ops[0]
	f.ops = f.ops[1:]
	var err error
	if o.line != nil {
		b := o.line()
		if a.o.SplitEvery > 0 && !o.tail && len(b) > 2 && a.rng.IntN(a.o.SplitEvery) == 0 {
			cut := 1 + a.rng.IntN(len(b)-2)
			rest := b[cut:]
			b = b[:cut]
			a.stats.Split++
			tail := &op{at: a.now.Add(time.Duration(200+a.rng.IntN(2500)) * time.Millisecond), tail: true,
				line: func() []byte { return rest }}
			f.ops = append([]*op{tail}, f.ops...)
		}
		a.stats.Lines += int64(bytes.Count(b, []byte{'\n'}))
		err = appendFile(f.path, b)
		a.stats.Bytes += int64(len(b))
	} else {
		err = o.do()
	}
	if len(f.ops) > 0 {
		a.push(f)
	}
	return err
}

func appendFile(path string, b []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if os.IsNotExist(err) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			fh, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	_, err = fh.Write(b)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// agent is one seat in the crowd: a session after another.
type agent struct {
	kind   burn.Provider
	next   time.Time
	turns  int // left in this session; 0: between sessions
	resume bool
	gone   bool // a subagent done with its work, the resumed thread done

	claude     *Claude
	claudePath string
	project    string
	lastMsg    string // the parent's newest message id, for a subagent's replay
	sub        *agent // a Claude subagent of this session
	parent     *agent // set on a subagent
	replay     bool   // a subagent that replays its parent's newest message first
	prompt     bool   // the next turn starts with a prompt (a snapshot line first)

	codex     *Codex
	codexPath string
}

var (
	claudeModels = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}
	codexModels  = []string{"gpt-5.1-codex", "gpt-5.1-codex-mini"}
)

func (a *Agents) uuid() string {
	a.ids++
	r := a.rng
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), uint64(a.ids)<<20|r.Uint64N(1<<20))
}

func (a *Agents) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(a.rng.Int64N(int64(hi-lo)+1))
}

// act runs an agent's next step: a new session or a turn.
func (a *Agents) act(ag *agent) {
	switch {
	case ag.resume:
		a.resumeTurn(ag)
	case ag.kind == burn.Claude:
		a.claudeTurn(ag)
	default:
		a.codexTurn(ag)
	}
}

func (a *Agents) claudeTurn(ag *agent) {
	t0 := ag.next
	if ag.turns == 0 {
		if ag.parent != nil {
			a.retire(ag)
			return
		}
		if ag.claudePath != "" {
			a.file(ag.claudePath).done = true
		}
		a.stats.ClaudeSessions++
		ag.project = fmt.Sprintf("/home/dev/src/app-%02d", a.rng.IntN(12))
		ag.claude = &Claude{SessionID: a.uuid(), Cwd: ag.project, Model: claudeModels[a.rng.IntN(len(claudeModels))],
			NoRequestID: a.rng.IntN(3) == 0}
		ag.claudePath = filepath.Join(a.ClaudeDir(), "projects", encodeCwd(ag.project), ag.claude.SessionID+".jsonl")
		ag.turns = 10 + a.rng.IntN(60)
		ag.prompt = true
	}
	c := ag.claude
	path := ag.claudePath
	a.file(path).claude = c
	if ag.parent == nil && ag.prompt {
		// A prompt: Claude Code writes a snapshot first, without a stamp
		// (a new session's transcript opens with it).
		a.appendAt(path, t0, c.Snapshot(t0))
	}
	a.appendAt(path, t0, c.User(t0, 100+a.rng.IntN(3000)))
	if a.rng.IntN(40) == 0 {
		// Now and then a tool result of a few hundred KB.
		a.appendAt(path, t0, c.User(t0, 200<<10+a.rng.IntN(300<<10)))
	}
	end := t0.Add(a.between(3*time.Second, 40*time.Second))
	u := Usage{Input: 3 + a.rng.Int64N(50), CacheCreation: 200 + a.rng.Int64N(4000), CacheRead: 20000 + a.rng.Int64N(130000), Output: 50 + a.rng.Int64N(3000)}
	ag.turns--
	stop := "tool_use"
	if ag.turns%6 == 0 || ag.turns == 0 {
		stop = "end_turn"
	}
	n := a.ids
	a.ids++
	msg := fmt.Sprintf("msg_01%s%06d", short(c.SessionID), n)
	if ag.replay && ag.parent != nil && ag.parent.lastMsg != "" {
		// A subagent replays its parent's message under a new request id.
		msg, ag.replay = ag.parent.lastMsg, false
	}
	req := fmt.Sprintf("req_011C%s%06d", short(c.SessionID), n)
	blocks := c.Response(end, msg, req, u, 1+a.rng.IntN(4), stop)
	for i, line := range blocks {
		at := end.Add(time.Duration(i-len(blocks)+1) * 150 * time.Millisecond)
		if i < len(blocks)-1 {
			a.appendAt(path, at, line)
			continue
		}
		w := u.Weighted(burn.DefaultCacheReadWeight)
		a.schedule(path, &op{at: at, line: func() []byte {
			a.burnClaude(at, w, c, path)
			return line
		}})
	}
	if ag.parent == nil {
		ag.lastMsg = msg
	}
	ag.prompt = stop == "end_turn"
	gap := a.between(time.Second, 15*time.Second)
	if stop == "end_turn" {
		gap = a.between(30*time.Second, 4*time.Minute)
	}
	ag.next = end.Add(gap)
	if ag.turns == 0 && ag.parent == nil {
		ag.next = end.Add(a.between(time.Minute, 10*time.Minute))
	}
	if ag.parent == nil && ag.sub == nil && a.rng.IntN(12) == 0 {
		a.spawnClaudeSub(ag, end)
	}
}

// spawnClaudeSub starts a subagent of ag's session: its own file under the
// session's subagents folder, its lines carrying the parent's session id.
func (a *Agents) spawnClaudeSub(ag *agent, at time.Time) {
	a.stats.Subagents++
	id := fmt.Sprintf("a%06x", a.rng.IntN(1<<24))
	c := &Claude{SessionID: ag.claude.SessionID, Cwd: ag.project, Model: claudeModels[1+a.rng.IntN(2)], Agent: id,
		NoRequestID: ag.claude.NoRequestID}
	sub := &agent{kind: burn.Claude, parent: ag, claude: c, project: ag.project, turns: 2 + a.rng.IntN(8),
		replay:     a.rng.IntN(2) == 0,
		claudePath: filepath.Join(a.ClaudeDir(), "projects", encodeCwd(ag.project), ag.claude.SessionID, "subagents", "agent-"+id+".jsonl"),
		next:       at.Add(a.between(time.Second, 10*time.Second))}
	ag.sub = sub
	a.crowd = append(a.crowd, sub)
}

// burnClaude moves Claude's account by a response's weighted tokens and
// records what the statusline would have seen.
func (a *Agents) burnClaude(at time.Time, weighted float64, c *Claude, path string) {
	acc := &a.claude
	if !at.Before(acc.reset) {
		acc.used, acc.hit = 2, false
		acc.reset = acc.reset.Add(5 * time.Hour)
	}
	acc.used = math.Min(100, acc.used+weighted*a.claudeTok)
	acc.weekly = math.Min(100, acc.weekly+weighted*a.claudeTok/25)
	if acc.used >= 100 && !acc.hit {
		acc.hit = true
		a.stats.LimitHits++
		a.appendAt(path, at, c.LimitHit(at, acc.reset, "five_hour"))
	}
	if at.Sub(a.lastSample) < 10*time.Second {
		return
	}
	a.lastSample = at
	a.stats.Samples += 2
	// One write, as runway statusline appends.
	b := statusline(at, acc.used, acc.reset, acc.weekly, acc.weekReset)
	a.schedule(filepath.Join(a.StateDir(), "samples.jsonl"), &op{at: at, tail: true, line: func() []byte { return b }})
}

// codexWindows moves Codex's account by a turn's tokens and returns the
// rate_limits a rollout records (a tenth of them without a 5-hour slot:
// no data, not 0 %).
func (a *Agents) codexWindows(at time.Time, weighted float64) (*Window, *Window) {
	acc := &a.codex
	if !at.Before(acc.reset) {
		acc.used = 1
		acc.reset = acc.reset.Add(5 * time.Hour)
	}
	acc.used = math.Min(100, acc.used+weighted*a.codexTok)
	acc.weekly = math.Min(100, acc.weekly+weighted*a.codexTok/25)
	week := &Window{UsedPercent: math.Round(acc.weekly*100) / 100, WindowMinutes: 10080, ResetsAt: acc.weekReset}
	if a.rng.IntN(10) == 0 {
		return nil, week
	}
	return &Window{UsedPercent: math.Round(acc.used*100) / 100, WindowMinutes: 300, ResetsAt: acc.reset}, week
}

// rolloutPath is where Codex puts a thread started at t: local dates.
func (a *Agents) rolloutPath(t time.Time, id string) string {
	l := t.In(a.loc)
	day := filepath.Join(a.CodexDir(), "sessions", l.Format("2006"), l.Format("01"), l.Format("02"))
	return filepath.Join(day, "rollout-"+l.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

func (a *Agents) codexTurn(ag *agent) {
	t0 := ag.next
	if ag.turns == 0 {
		if ag.parent != nil {
			a.retire(ag)
			return
		}
		a.stats.Codex++
		ag.codex = &Codex{ThreadID: a.uuid(), Cwd: fmt.Sprintf("/home/dev/src/svc-%02d", a.rng.IntN(8)),
			Model: codexModels[a.rng.IntN(len(codexModels))]}
		ag.codexPath = a.rolloutPath(t0, ag.codex.ThreadID)
		if day := filepath.Dir(ag.codexPath); !a.days[day] {
			a.days[day] = true
			if t0.After(a.o.Start) {
				a.stats.DayFolders++
			}
		}
		ag.turns = 8 + a.rng.IntN(40)
		x, opened := ag.codex, t0
		a.schedule(ag.codexPath, &op{at: opened, line: func() []byte { return x.Meta(opened) }})
		t0 = t0.Add(time.Second)
	}
	ag.turns--
	a.codexTurnInto(ag.codex, ag.codexPath, t0, ag)
	if ag.turns == 0 && ag.parent == nil {
		ag.next = ag.next.Add(a.between(time.Minute, 10*time.Minute))
	}
	if ag.parent == nil && ag.sub == nil && ag.turns > 3 && a.rng.IntN(15) == 0 {
		a.stats.Subagents++
		x := &Codex{ThreadID: a.uuid(), Cwd: ag.codex.Cwd, Model: ag.codex.Model, Parent: ag.codex.ThreadID}
		sub := &agent{kind: burn.Codex, parent: ag, codex: x, turns: 2 + a.rng.IntN(6),
			codexPath: a.rolloutPath(ag.next, x.ThreadID), next: ag.next.Add(2 * time.Second)}
		start := ag.next
		a.schedule(sub.codexPath, &op{at: start, line: func() []byte { return x.Meta(start) }})
		ag.sub = sub
		a.crowd = append(a.crowd, sub)
	}
}

// codexTurnInto plays one turn of x into path from t0 and sets ag.next.
func (a *Agents) codexTurnInto(x *Codex, path string, t0 time.Time, ag *agent) {
	work := t0.Add(a.between(4*time.Second, 50*time.Second))
	item := t0.Add(work.Sub(t0) / 2)
	in := 5000 + a.rng.Int64N(35000)
	u := Usage{Input: in, CacheRead: in * (6 + a.rng.Int64N(4)) / 10, Output: 200 + a.rng.Int64N(3000)}
	a.schedule(path, &op{at: t0, line: func() []byte { return bytes.Join(x.TurnStart(t0), nil) }})
	size := 100 + a.rng.IntN(4000)
	a.schedule(path, &op{at: item, line: func() []byte { return x.Item(item, size) }})
	w := float64(u.Input-u.CacheRead) + float64(u.Output) + 0.1*float64(u.CacheRead)
	a.schedule(path, &op{at: work, line: func() []byte {
		p, s := a.codexWindows(work, w)
		return x.TokenCount(work, u, p, s)
	}})
	done := work.Add(time.Second)
	a.schedule(path, &op{at: done, line: func() []byte { return x.TaskComplete(done) }})
	gap := a.between(2*time.Second, 20*time.Second)
	if a.rng.IntN(8) == 0 {
		gap = a.between(40*time.Second, 3*time.Minute)
	}
	ag.next = done.Add(gap)
}

// writeOld leaves a rollout three days before Start, as if Codex ran
// then; it is resumed (appended to) at ResumeAfter.
func (a *Agents) writeOld() error {
	at := a.o.Start.Add(-3 * 24 * time.Hour)
	x := &Codex{ThreadID: a.uuid(), Cwd: "/home/dev/src/legacy", Model: codexModels[0]}
	a.old, a.oldPath = x, a.rolloutPath(at, x.ThreadID)
	lines := [][]byte{x.Meta(at)}
	for i := range 5 {
		t := at.Add(time.Duration(i) * time.Minute)
		lines = append(lines, x.TurnStart(t)...)
		lines = append(lines, x.TokenCount(t.Add(20*time.Second), Usage{Input: 9000, CacheRead: 6000, Output: 800},
			&Window{UsedPercent: 50, WindowMinutes: 300, ResetsAt: at.Add(2 * time.Hour)}, nil))
		lines = append(lines, x.TaskComplete(t.Add(21*time.Second)))
	}
	if err := writeLines(a.oldPath, lines); err != nil {
		return err
	}
	a.days[filepath.Dir(a.oldPath)] = true
	return os.Chtimes(a.oldPath, at.Add(time.Hour), at.Add(time.Hour))
}

// resumeTurn appends a turn to the old rollout: Codex resumes a thread in
// its original file, whatever its date folder.
func (a *Agents) resumeTurn(ag *agent) {
	if ag.turns == 0 {
		ag.turns = 6 + a.rng.IntN(6)
	}
	ag.turns--
	a.stats.Resumed++
	a.codexTurnInto(a.old, a.oldPath, ag.next, ag)
	if ag.turns == 0 {
		a.retire(ag)
	}
}

// retire takes an agent out of the crowd: a subagent done with its work,
// the resumed thread done.
func (a *Agents) retire(ag *agent) {
	ag.gone = true
	if ag.parent != nil && ag.parent.sub == ag {
		ag.parent.sub = nil
	}
	a.crowd = slices.DeleteFunc(a.crowd, func(x *agent) bool { return x.gone })
}

// doChurn truncates, replaces or rewrites a live Claude transcript, or
// deletes an ended one, in turn, in the file's own order of writes.
func (a *Agents) doChurn() {
	at := a.nextChurn
	a.nextChurn = at.Add(a.o.ChurnEvery)
	kind := a.churn % 4
	a.churn++
	var fs []*playFile
	for _, f := range a.files {
		if filepath.Ext(f.path) != ".jsonl" || filepath.Dir(filepath.Dir(f.path)) != filepath.Join(a.ClaudeDir(), "projects") {
			continue
		}
		if _, err := os.Stat(f.path); err == nil && f.done == (kind == 3) {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return
	}
	// Deterministic whatever the map order.
	slices.SortFunc(fs, func(x, y *playFile) int { return strings.Compare(x.path, y.path) })
	f := fs[a.rng.IntN(len(fs))]
	a.schedule(f.path, &op{at: at, do: func() error { return a.churnFile(kind, f) }})
}

// churnFile changes f as doChurn's kind says.
func (a *Agents) churnFile(kind int, f *playFile) error {
	switch kind {
	case 0: // truncated, and written on
		a.stats.Truncated++
		return os.Truncate(f.path, 0)
	case 3: // an ended session's transcript deleted (cleanupPeriodDays)
		a.stats.Deleted++
		delete(a.files, f.path)
		return os.Remove(f.path)
	case 1:
		a.stats.Replaced++
	default:
		a.stats.Rewritten++
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return err
	}
	if kind == 1 { // replaced by a shorter copy (rename over it)
		keep := firstLines(b, bytes.Count(b, []byte{'\n'})/2)
		tmp := filepath.Join(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp")
		if err := os.WriteFile(tmp, keep, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, f.path)
	}
	// Rewritten in place, longer than before: the bytes before the
	// reader's offset change under it.
	first := firstLines(b, 1)
	out := append(bytes.Clone(b[len(first):]), f.claude.User(a.now, len(first)+100)...)
	return os.WriteFile(f.path, out, 0o644)
}

// firstLines is b's first n complete lines.
func firstLines(b []byte, n int) []byte {
	off := 0
	for range n {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return b[:off]
}

// Weighted is the usage's weighted tokens for Claude (docs/formats.md,
// "Weighted tokens").
func (u Usage) Weighted(cacheReadWeight float64) float64 {
	return float64(u.Input+u.Output+u.CacheCreation) + cacheReadWeight*float64(u.CacheRead)
}
