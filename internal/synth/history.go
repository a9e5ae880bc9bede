package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HistoryOptions shape the history History writes. Zero fields take the
// defaults noted; sizes are approximate (whole turns are written).
type HistoryOptions struct {
	// End is the history's last instant: what a reader calls "now".
	End time.Time
	// Size is the whole history's size (default 64 MiB).
	Size int64
	// ActiveSize is the one big active Claude session (default Size/16:
	// 212 MB of a 3.4 GB history, the largest session seen in the field).
	ActiveSize int64
	// RecentBytes is the part of the big session stamped in the last hour
	// (default ActiveSize/25, one busy hour); the rest ended a day earlier.
	RecentBytes int64
	// Lone leaves out the other recent sessions: only the big session and
	// its subagent are touched in the last day.
	Lone bool
	// Seed makes the content reproducible.
	Seed uint64
}

// HistoryStats say what History wrote.
type HistoryStats struct {
	End    time.Time `json:"end"`
	Claude string    `json:"claude"` // the Claude root (CLAUDE_CONFIG_DIR)
	Codex  string    `json:"codex"`  // the Codex root (CODEX_HOME)
	// State is a runway state folder holding the Claude account samples
	// `runway statusline` would have recorded (RUNWAY_STATE_DIR).
	State string `json:"state"`
	Files int    `json:"files"`
	Bytes int64  `json:"bytes"`
	// Active is the big active Claude session and ActiveBytes its size.
	Active      string `json:"active"`
	ActiveBytes int64  `json:"active_bytes"`
	// ActiveSession is its session id.
	ActiveSession string `json:"active_session"`
}

// ManifestName is the file History leaves at the top of its folder: the
// HistoryStats as JSON, so a benchmark can reuse a history it did not write.
const ManifestName = "history.json"

// ReadManifest reads the HistoryStats of a folder History wrote, its
// paths moved under dir should the folder have moved.
func ReadManifest(dir string) (HistoryStats, error) {
	var st HistoryStats
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return st, fmt.Errorf("synth: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("synth: %s: %w", ManifestName, err)
	}
	if rel, err := filepath.Rel(filepath.Dir(st.Claude), st.Active); err == nil {
		st.Active = filepath.Join(dir, rel)
	}
	st.Claude, st.Codex, st.State = filepath.Join(dir, "claude"), filepath.Join(dir, "codex"), filepath.Join(dir, "state")
	return st, nil
}

// History writes a large history as the agents leave it on disk (dir/claude,
// dir/codex, and dir/state with the statusline's account samples): months of
// old sessions, one big active Claude session with a subagent and, unless
// Lone, a few other recent sessions. Each writer's turn is rendered once as
// a template and copied with fresh stamps, ids and counts: gigabytes take seconds.
func History(dir string, o HistoryOptions) (HistoryStats, error) {
	o.fillDefaults()
	end := o.End.UTC().Truncate(time.Millisecond)
	g := &historyGen{
		rng:    rand.New(rand.NewPCG(o.Seed, o.Seed^0x5851f42d4c957f2d)),
		claude: filepath.Join(dir, "claude"),
		codex:  filepath.Join(dir, "codex"),

		templates: map[string][]*template{},
	}
	st := HistoryStats{End: end, Claude: g.claude, Codex: g.codex, State: filepath.Join(dir, "state")}
	if err := os.MkdirAll(st.State, 0o700); err != nil {
		return st, fmt.Errorf("synth: %w", err)
	}
	if err := claudeSamples(st.State, end); err != nil {
		return st, fmt.Errorf("synth: %w", err)
	}
	// The order of the steps is the order of the random draws: changing
	// it changes every file of a seed.
	if err := g.active(o, end, &st); err != nil {
		return st, err
	}
	if !o.Lone {
		if err := g.others(o, end); err != nil {
			return st, err
		}
	}
	if err := g.old(o, end); err != nil {
		return st, err
	}
	st.Files, st.Bytes = g.files, g.bytes
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return st, err
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644); err != nil {
		return st, fmt.Errorf("synth: %w", err)
	}
	return st, nil
}

// fillDefaults gives each unset option its default: a 64 MB history whose
// active session is a sixteenth of it.
func (o *HistoryOptions) fillDefaults() {
	if o.End.IsZero() {
		o.End = time.Now()
	}
	if o.Size <= 0 {
		o.Size = 64 << 20
	}
	if o.ActiveSize <= 0 {
		o.ActiveSize = o.Size / 16
	}
	if o.RecentBytes <= 0 {
		o.RecentBytes = o.ActiveSize / 25
	}
	o.RecentBytes = min(o.RecentBytes, o.ActiveSize)
}

// active writes the big session, days of work that ended yesterday and
// resumed an hour ago, and a subagent of it: the files runway must follow.
func (g *historyGen) active(o HistoryOptions, end time.Time, st *HistoryStats) error {
	big := g.claudeFile("/home/dev/src/big-monorepo", "claude-opus-4-5-20251101", "", false)
	st.Active, st.ActiveSession = big.path, big.session
	if err := g.write(big, []span{
		{o.ActiveSize - o.RecentBytes, end.Add(-7 * 24 * time.Hour), end.Add(-26 * time.Hour)},
		{o.RecentBytes, end.Add(-time.Hour), end},
	}); err != nil {
		return err
	}
	st.ActiveBytes = big.n
	agent := g.claudeFile("/home/dev/src/big-monorepo", "claude-sonnet-4-5-20250929", big.session, false)
	return g.write(agent, []span{{o.RecentBytes / 4, end.Add(-40 * time.Minute), end.Add(-time.Minute)}})
}

// old fills the rest of the size with old history: 55 % Claude, 45 %
// Codex, sizes log-uniform over three decades up to 32 MB (less for a
// small history, so it still has many files), ended between four months
// and seven hours ago.
func (g *historyGen) old(o HistoryOptions, end time.Time) error {
	oldest := end.Add(-4 * 30 * 24 * time.Hour)
	latest := end.Add(-7 * time.Hour)
	projects := make([]string, 25)
	for i := range projects {
		projects[i] = fmt.Sprintf("/home/dev/src/%s-%d", []string{"api", "web", "infra", "docs", "cli"}[i%5], i)
	}
	hi := min(max(o.Size/64, 64<<10), 32<<20)
	lo := max(hi/1024, 8<<10)
	for left := o.Size - g.bytes; left > lo/2; left = o.Size - g.bytes {
		size := min(int64(math.Exp(math.Log(float64(lo))+g.rng.Float64()*math.Log(float64(hi)/float64(lo)))), left)
		fin := oldest.Add(time.Duration(g.rng.Int64N(int64(latest.Sub(oldest)))))
		// About 4 MB an hour of work, between ten minutes and ten hours.
		dur := min(max(time.Duration(float64(size)/(4<<20)*float64(time.Hour)), 10*time.Minute), 10*time.Hour)
		var f *historyFile
		if g.rng.Float64() < 0.55 {
			p := projects[g.rng.IntN(len(projects))]
			f = g.claudeFile(p, "claude-sonnet-4-5-20250929", "", g.rng.IntN(3) == 0)
		} else {
			f = g.codexFile(fin.Add(-dur), g.rng.IntN(10) == 0)
		}
		if err := g.write(f, []span{{size, fin.Add(-dur), fin}}); err != nil {
			return err
		}
	}
	return nil
}

// others writes the other recent sessions: three Claude sessions of the
// last hours (one busy, one waiting, one idle) and a Codex rollout running
// since yesterday.
func (g *historyGen) others(o HistoryOptions, end time.Time) error {
	// Other sessions of the last hours: one busy, one waiting, one idle.
	for i, ago := range []time.Duration{2 * time.Minute, 25 * time.Minute, 2 * time.Hour} {
		f := g.claudeFile(fmt.Sprintf("/home/dev/src/service-%d", i), "claude-sonnet-4-5-20250929", "", i == 0)
		if err := g.write(f, []span{{max(o.Size/1000, 64<<10), end.Add(-ago - 3*time.Hour), end.Add(-ago)}}); err != nil {
			return err
		}
	}
	// A Codex rollout running since yesterday.
	cx := g.codexFile(end.Add(-30*time.Hour), false)
	if err := g.write(cx, []span{{max(o.Size/170, 64<<10), end.Add(-30 * time.Hour), end.Add(-30 * time.Second)}}); err != nil {
		return err
	}
	return nil
}

// span is a stretch of a file: about size bytes stamped evenly from start
// to end.
type span struct {
	size       int64
	start, end time.Time
}

type historyGen struct {
	rng           *rand.Rand
	claude, codex string
	files         int
	bytes         int64
	// templates are compiled once per kind of file: model and request
	// ids ("codex" for rollouts).
	templates map[string][]*template
	w         *bufio.Writer // reused across files
	buf       []byte
}

// historyFile is one session file being written, with the counters its
// templates' holes draw from.
type historyFile struct {
	path    string
	session string
	idBase  string // message and request ids start with it
	cwd     string
	codex   bool
	head    *template   // written once at the start (Codex's session_meta)
	turns   []*template // one is chosen per turn
	n       int64       // bytes written
	last    time.Time   // the last stamp written

	uuid, msg int64
	ordinal   int64
	total     Usage // Codex's cumulative total
	turn      int
}

func (g *historyGen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", g.rng.Uint32(), g.rng.IntN(1<<16), g.rng.IntN(1<<12), 0x8000|g.rng.IntN(1<<14), g.rng.Int64N(1<<48))
}

// claudeFile prepares a transcript in cwd's project folder; with parent
// set, a subagent's file of that session.
func (g *historyGen) claudeFile(cwd, model, parent string, noRequestID bool) *historyFile {
	id := g.uuid()
	project := filepath.Join(g.claude, "projects", encodeCwd(cwd))
	f := &historyFile{path: filepath.Join(project, id+".jsonl"), session: id, idBase: idBase(id)}
	f.cwd = cwd
	key := fmt.Sprint("claude", model, noRequestID)
	c := &Claude{SessionID: tmplSession, Cwd: tmplCwd, Model: model, NoRequestID: noRequestID}
	if parent != "" {
		c.Agent = fmt.Sprintf("a%06x", g.rng.IntN(1<<24))
		f.path = filepath.Join(project, parent, "subagents", "agent-"+c.Agent+".jsonl")
		f.session, key = parent, ""
	}
	if f.turns = g.templates[key]; f.turns != nil {
		return f
	}
	for _, blocks := range []int{1, 2, 3} {
		for _, stop := range []string{"tool_use", "tool_use", "end_turn"} {
			lines := [][]byte{c.User(tmplAt, tmplText)}
			lines = append(lines, c.Response(tmplAt.Add(2*time.Second), tmplMsg, tmplReq, tmplClaude, blocks, stop)...)
			f.turns = append(f.turns, compile(realOrder(slices.Concat(lines...), claudeOrder)))
		}
	}
	if key != "" {
		g.templates[key] = f.turns
	}
	return f
}

// codexFile prepares a rollout started at start, in its date folder or,
// archived, in archived_sessions.
func (g *historyGen) codexFile(start time.Time, archived bool) *historyFile {
	id := g.uuid()
	name := "rollout-" + start.UTC().Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	path := filepath.Join(g.codex, "archived_sessions", name)
	if !archived {
		path = filepath.Join(g.codex, "sessions", start.UTC().Format("2006/01/02"), name)
	}
	f := &historyFile{path: path, session: id, idBase: idBase(id), cwd: "/home/dev/src/codex-work", codex: true}
	if t := g.templates["codex"]; t != nil {
		f.head, f.turns = t[0], t[1:]
		return f
	}
	x := &Codex{ThreadID: tmplSession, Cwd: tmplCwd, Model: "gpt-5.1-codex"}
	f.head = compile(realOrder(x.Meta(tmplAt), codexOrder))
	// The total before this response, so the template's total differs
	// from its last usage and each becomes its own hole.
	x.total = Usage{Input: 10, CacheRead: 10, Output: 10}
	lines := x.TurnStart(tmplAt)
	lines = append(lines, x.Item(tmplAt.Add(time.Second), tmplText))
	lines = append(lines, x.TokenCount(tmplAt.Add(3*time.Second), tmplCodex,
		&Window{UsedPercent: 66.25, WindowMinutes: 300, ResetsAt: time.Unix(1666000031, 0)},
		&Window{UsedPercent: 66.5, WindowMinutes: 10080, ResetsAt: time.Unix(1666000032, 0)}))
	lines = append(lines, x.TaskComplete(tmplAt.Add(4*time.Second)))
	f.turns = []*template{compile(realOrder(slices.Concat(lines...), codexOrder))}
	g.templates["codex"] = []*template{f.head, f.turns[0]}
	return f
}

// write renders f's spans and sets its modification time to its last line.
func (g *historyGen) write(f *historyFile, spans []span) error {
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	fh, err := os.Create(f.path)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if g.w == nil {
		g.w = bufio.NewWriterSize(fh, 1<<20)
	}
	w, buf := g.w, g.buf
	w.Reset(fh)
	for i, s := range spans {
		if i == 0 && f.head != nil {
			buf = f.render(g, f.head, 0, s.start, buf[:0])
			w.Write(buf)
			f.n += int64(len(buf))
		}
		// Plan the turns first, so they can be stamped evenly by their
		// bytes with the last one ending at the span's end.
		var plan []turnPlan
		var est, before int64
		for est < s.size {
			p := turnPlan{t: f.turns[g.rng.IntN(len(f.turns))], text: toolSize(g.rng)}
			before = est
			est += p.t.size + int64(p.text)
			plan = append(plan, p)
		}
		var done int64
		for _, p := range plan {
			at := s.end.Add(-p.t.span)
			if before > 0 {
				at = s.start.Add(time.Duration(float64(done) / float64(before) * float64(at.Sub(s.start))))
			}
			done += p.t.size + int64(p.text)
			// Stamps never go back, however dense the turns.
			at = maxTime(at.Truncate(time.Millisecond), f.last.Add(time.Millisecond))
			buf = f.render(g, p.t, p.text, at, buf[:0])
			w.Write(buf)
			f.n += int64(len(buf))
		}
	}
	g.buf = buf
	err = w.Flush()
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(f.path, f.last, f.last)
	}
	if err != nil {
		return fmt.Errorf("synth: write %s: %w", f.path, err)
	}
	g.files++
	g.bytes += f.n
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// The values a template is rendered with, each recognisable in the
// writers' output so it can become a hole.
var (
	tmplAt      = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	tmplText    = 37 // a run of 37 x (Claude) or y (Codex): the tool output
	tmplSession = "5e55101d-5e55-4e55-8e55-5e55101d5e55"
	tmplCwd     = "/HOLE/CWD"
	tmplMsg     = "msg_01HOLEHOLEHOLE"
	tmplReq     = "req_011CHOLEHOLEHOLE"
	tmplClaude  = Usage{Input: 7770001, CacheCreation: 7770002, CacheRead: 7770003, Output: 7770004}
	tmplCodex   = Usage{Input: 7770011, CacheRead: 7770012, Output: 7770013}
)

// The key order of the agents' own files (the writers sort keys). It
// matters to readers: a Codex line's types come before its payload, a
// Claude line's timestamp after its message.
var (
	claudeOrder = []string{"parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch",
		"agentId", "message", "isApiErrorMessage", "error", "quotaLimits", "requestId", "type", "uuid", "timestamp"}
	codexOrder = []string{"timestamp", "ordinal", "type", "payload"}
	innerOrder = []string{"id", "session_id", "type", "role", "model", "tool_use_id", "content", "stop_reason", "stop_sequence",
		"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cached_input_tokens", "cache_creation",
		"output_tokens", "reasoning_output_tokens", "total_tokens",
		"info", "total_token_usage", "last_token_usage", "model_context_window",
		"rate_limits", "limit_id", "limit_name", "primary", "secondary", "used_percent", "window_minutes", "resets_at"}
)

// realOrder rewrites each line of b with its keys in the agents' order:
// top's at the top level, innerOrder below; other keys follow, sorted.
// HTML escapes (\u003c) become the characters, as the agents write them.
func realOrder(b []byte, top []string) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		out = appendOrdered(out, json.RawMessage(bytes.TrimSpace(l)), top)
		out = append(out, '\n')
	}
	r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	return []byte(r.Replace(string(out)))
}

func appendOrdered(out []byte, v json.RawMessage, order []string) []byte {
	var m map[string]json.RawMessage
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &m) != nil {
		var a []json.RawMessage
		if len(v) > 0 && v[0] == '[' && json.Unmarshal(v, &a) == nil {
			out = append(out, '[')
			for i, e := range a {
				if i > 0 {
					out = append(out, ',')
				}
				out = appendOrdered(out, e, innerOrder)
			}
			return append(out, ']')
		}
		return append(out, v...)
	}
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int {
		rank := func(k string) int {
			if i := slices.Index(order, k); i >= 0 {
				return i
			}
			return len(order)
		}
		return rank(a) - rank(b)
	})
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendQuote(out, k)
		out = append(out, ':')
		out = appendOrdered(out, m[k], innerOrder)
	}
	return append(out, '}')
}

// holeKind says what a hole is filled with.
type holeKind int

const (
	holeStamp      holeKind = iota // tmplAt+delta moved to the turn's instant
	holeSession                    // the file's session id
	holeCwd                        // its working folder
	holeText                       // tool output of a random size
	holeParentUUID                 // the previous line's uuid
	holeUUID                       // a new line uuid
	holeMsg                        // a new message id (shared by a response's lines)
	holeReq                        // its request id
	holeOrdinal                    // a rollout line's ordinal
	holeClaudeIn
	holeClaudeCC
	holeClaudeCR
	holeClaudeOut
	holeLastIn
	holeLastCached
	holeLastOut
	holeLastReason
	holeLastTotal
	holeTotalIn
	holeTotalCached
	holeTotalOut
	holeTotalReason
	holeTotalTotal
	holePrimaryUsed
	holePrimaryReset
	holeSecondaryUsed
	holeSecondaryReset
)

// holeValues maps each recognisable literal to its hole. The Codex
// totals are tmplCodex plus 10 each; reasoning is a third of output and
// total input plus output, as the Codex writer derives them.
var holeValues = map[string]holeKind{
	"7770001": holeClaudeIn, "7770002": holeClaudeCC, "7770003": holeClaudeCR, "7770004": holeClaudeOut,
	"7770011": holeLastIn, "7770012": holeLastCached, "7770013": holeLastOut, "2590004": holeLastReason, "15540024": holeLastTotal,
	"7770021": holeTotalIn, "7770022": holeTotalCached, "7770023": holeTotalOut, "2590007": holeTotalReason, "15540044": holeTotalTotal,
	"66.25": holePrimaryUsed, "1666000031": holePrimaryReset, "66.5": holeSecondaryUsed, "1666000032": holeSecondaryReset,
	"HOLEHOLEHOLE": holeMsg, // msg_01… and req_011C… keep their prefixes
	tmplSession:    holeSession,
	tmplCwd:        holeCwd,
}

// holePattern is built on first use: cmd/runway links this package for
// its demo, and its start-up must not pay for the generator.
var holePattern = sync.OnceValue(func() *regexp.Regexp {
	var alts []string
	for v := range holeValues {
		alts = append(alts, regexp.QuoteMeta(v))
	}
	// Longest first, so 15540024 is not read as a shorter value.
	slices.SortFunc(alts, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z` +
		`|"ordinal":\d+` +
		`|0000-4000-[89]000-\d{12}` +
		`|x{37}|y{37}` +
		`|` + strings.Join(alts, "|"))
})

// template is a writer's output cut at its holes: lits[i] comes before
// holes[i], and the last literal after the last hole.
type template struct {
	lits  [][]byte
	holes []hole
	size  int64         // about its bytes, without the tool output
	span  time.Duration // from its first stamp to its last
}

type hole struct {
	kind  holeKind
	delta time.Duration // for a stamp
}

// compile cuts b at the values holePattern recognises.
func compile(b []byte) *template {
	t := &template{}
	prev := 0
	for _, m := range holePattern().FindAllIndex(b, -1) {
		v := string(b[m[0]:m[1]])
		var h hole
		switch {
		case v[0] == '"':
			h.kind = holeOrdinal
		case v[0] == 'x' || v[0] == 'y':
			h.kind = holeText
		case strings.HasPrefix(v, "0000-4000-8000-"):
			h.kind = holeParentUUID
		case strings.HasPrefix(v, "0000-4000-9000-"):
			h.kind = holeUUID
		case len(v) == 24 && v[4] == '-':
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				panic(err) // the pattern only matches stamps
			}
			h.kind, h.delta = holeStamp, at.Sub(tmplAt)
			t.span = max(t.span, h.delta)
		default:
			h.kind = holeValues[v]
		}
		if h.kind == holeMsg && strings.HasSuffix(string(b[max(m[0]-8, 0):m[0]]), "req_011C") {
			h.kind = holeReq
		}
		t.lits = append(t.lits, b[prev:m[0]])
		t.holes = append(t.holes, h)
		prev = m[1]
	}
	t.lits = append(t.lits, b[prev:])
	for _, l := range t.lits {
		t.size += int64(len(l))
	}
	t.size += 20 * int64(len(t.holes)) // stamps, ids and counts: about this long
	return t
}

// quotaClock is one rate-limit window of an account: fixed instances of
// length, used at perHour percent an hour in the working day (08–20 UTC)
// and a tenth of it at night, the same whichever session reports it.
type quotaClock struct {
	length  time.Duration
	perHour float64
}

var (
	codexFiveHour  = quotaClock{5 * time.Hour, 17}
	codexWeekly    = quotaClock{7 * 24 * time.Hour, 1}
	claudeFiveHour = quotaClock{5 * time.Hour, 19}
	claudeWeekly   = quotaClock{7 * 24 * time.Hour, 1.1}
)

// at is the used percent (one decimal) at t and the instance's reset.
func (a quotaClock) at(t time.Time) (float64, time.Time) {
	start := t.Truncate(a.length)
	used := 0.0
	for h := start; h.Before(t); h = h.Truncate(time.Hour).Add(time.Hour) {
		next := h.Truncate(time.Hour).Add(time.Hour)
		if next.After(t) {
			next = t
		}
		rate := a.perHour / 10
		if hr := h.UTC().Hour(); hr >= 8 && hr < 20 {
			rate = a.perHour
		}
		used += rate * next.Sub(h).Hours()
	}
	return min(math.Round(used*10)/10, 100), start.Add(a.length)
}

// claudeSamples writes what `runway statusline` would have recorded in
// runway's sample log over the last two hours: Claude's two windows every
// 30 seconds.
func claudeSamples(dir string, end time.Time) error {
	var b []byte
	for at := end.Add(-2 * time.Hour); !at.After(end); at = at.Add(30 * time.Second) {
		used5h, reset5h := claudeFiveHour.at(at)
		usedWeek, resetWeek := claudeWeekly.at(at)
		b = append(b, statusline(at, used5h, reset5h, usedWeek, resetWeek)...)
	}
	return os.WriteFile(filepath.Join(dir, "samples.jsonl"), b, 0o600)
}

// turnPlan is one turn to write: its template and its tool output's size.
type turnPlan struct {
	t    *template
	text int
}

// render appends t filled for one turn at the instant at.
func (f *historyFile) render(g *historyGen, t *template, text int, at time.Time, buf []byte) []byte {
	r := g.rng
	f.turn++
	f.msg++
	claude, last := f.drawCounts(r, t)
	// One pass over the template's holes, in order: it writes gigabytes.
	for i, h := range t.holes {
		buf = append(buf, t.lits[i]...)
		switch h.kind {
		case holeStamp:
			s := at.Add(h.delta)
			f.last = maxTime(f.last, s)
			buf = s.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z")
		case holeSession:
			buf = append(buf, f.session...)
		case holeCwd:
			buf = append(buf, f.cwd...)
		case holeText:
			buf = append(buf, historyText(r, text)...)
		case holeParentUUID:
			buf = appendUUID(buf, "0000-4000-8000-", f.uuid)
		case holeUUID:
			f.uuid++
			buf = appendUUID(buf, "0000-4000-9000-", f.uuid)
		case holeMsg, holeReq:
			buf = appendID(buf, f.idBase, f.msg, h.kind == holeReq)
		case holeOrdinal:
			buf = append(buf, `"ordinal":`...)
			buf = strconv.AppendInt(buf, f.ordinal, 10)
			f.ordinal++
		case holePrimaryUsed, holePrimaryReset, holeSecondaryUsed, holeSecondaryReset:
			buf = appendCodexWindow(buf, h.kind, at)
		default:
			buf = appendCount(buf, h.kind, claude, last, f.total)
		}
	}
	return append(buf, t.lits[len(t.lits)-1]...)
}

// drawCounts draws one response's counts before any hole is written, so
// every line of the turn agrees; a Codex turn's last usage also joins its
// running total.
func (f *historyFile) drawCounts(r *rand.Rand, t *template) (claude, last Usage) {
	claude.Input, claude.CacheCreation, claude.CacheRead, claude.Output = 1+r.Int64N(20), 200+r.Int64N(5000), 20000+r.Int64N(160000), 50+r.Int64N(950)
	if f.codex && t != f.head {
		last = Usage{Input: 20000 + r.Int64N(80000), Output: 100 + r.Int64N(2000)}
		last.CacheRead = last.Input * 8 / 10
		f.total.Input += last.Input
		f.total.CacheRead += last.CacheRead
		f.total.Output += last.Output
	}
	return claude, last
}

// appendCount writes a token count hole: Claude's response, Codex's last
// turn or its running total (reasoning is a third of the output).
func appendCount(buf []byte, kind holeKind, claude, last, total Usage) []byte {
	var n int64
	switch {
	case kind == holeClaudeIn:
		n = claude.Input
	case kind == holeClaudeCC:
		n = claude.CacheCreation
	case kind == holeClaudeCR:
		n = claude.CacheRead
	case kind == holeClaudeOut:
		n = claude.Output
	case kind >= holeLastIn && kind <= holeTotalTotal:
		u, i := last, kind-holeLastIn
		if kind >= holeTotalIn {
			u, i = total, kind-holeTotalIn
		}
		// In the order of the hole kinds: in, cached, out, reasoning, total.
		n = [...]int64{u.Input, u.CacheRead, u.Output, u.Output / 3, u.Input + u.Output}[i]
	default:
		return buf
	}
	return strconv.AppendInt(buf, n, 10)
}

// appendCodexWindow writes a rate-limit hole: the used percent or reset of
// the five-hour or weekly window at the line's time.
func appendCodexWindow(buf []byte, kind holeKind, at time.Time) []byte {
	w := codexFiveHour
	if kind == holeSecondaryUsed || kind == holeSecondaryReset {
		w = codexWeekly
	}
	used, reset := w.at(at)
	if kind == holePrimaryUsed || kind == holeSecondaryUsed {
		return strconv.AppendFloat(buf, used, 'f', -1, 64)
	}
	return strconv.AppendInt(buf, reset.Unix(), 10)
}

func appendUUID(buf []byte, prefix string, n int64) []byte {
	return appendPadded(append(buf, prefix...), strconv.FormatInt(n, 10))
}

// appendPadded appends s zero-padded to 12 characters.
func appendPadded(buf []byte, s string) []byte {
	for range 12 - len(s) {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// idBase is a file's part of its message ids: a subagent's file shares
// its session id but not its messages.
func idBase(fileID string) string {
	return strings.ToUpper(strings.ReplaceAll(fileID, "-", "")[:10])
}

// appendID appends a message or request id unique to the file and turn.
func appendID(buf []byte, base string, n int64, req bool) []byte {
	buf = append(buf, base...)
	if req {
		buf = append(buf, 'R')
	}
	return appendPadded(buf, strconv.FormatInt(n, 36))
}

// toolSize is one tool output's size: mostly small, sometimes huge.
func toolSize(r *rand.Rand) int {
	switch p := r.Float64(); {
	case p < 0.6:
		return 200 + r.IntN(2000)
	case p < 0.95:
		return 2000 + r.IntN(30000)
	default:
		return 50000 + r.IntN(250000)
	}
}

// historyFiller is JSON string content (escapes included) that tool
// output is cut from, built on first use.
var historyFiller = sync.OnceValue(func() string {
	var b strings.Builder
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "ctx", "package", "import",
		"the", "session", "file", "line", "window", "build", "test", "ok", "FAIL", "main.go:42:"}
	r := rand.New(rand.NewPCG(1, 2))
	for b.Len() < 1<<20 {
		for range 4 + r.IntN(10) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		switch r.IntN(6) {
		case 0:
			b.WriteString(`\"quoted\" `)
		case 1:
			b.WriteString(`\t`)
		}
		b.WriteString(`\n`)
	}
	return b.String()
})

// historyText is n bytes of filler that never cuts an escape in two.
func historyText(r *rand.Rand, n int) string {
	historyFiller := historyFiller()
	n = min(n, len(historyFiller)-2)
	i := r.IntN(len(historyFiller) - n)
	if i > 0 && historyFiller[i-1] == '\\' {
		i++ // the filler's only backslashes start two-byte escapes
	}
	j := i + n
	if historyFiller[j-1] == '\\' {
		j--
	}
	return historyFiller[i:j]
}
