package tail

import (
	"bytes"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
	"github.com/tidwall/gjson"
)

// claudeLog is a Claude transcript's format state: the session and agent
// it belongs to (from the path, or the last line's sessionId) and the best
// copy read of each message.
type claudeLog struct {
	session, agent string
	shared         sharedStrings
	messages       map[string]*claudeMessage
}

func newClaudeLog(path string) format {
	l := &claudeLog{messages: map[string]*claudeMessage{}}
	l.session, l.agent = claudePathIDs(path)
	return l
}

func (l *claudeLog) wants(line []byte) bool { return claudeWants(line) }

func (l *claudeLog) parse(line []byte, p *pass) (changed bool) {
	out, ok := parseClaude(line, l.session, l.agent, p.weight, &l.shared)
	if out.implausible {
		p.f.warn(warnf("%s: skipped a response with more than %d tokens of one kind (a damaged line)", p.f.path, int64(burn.MaxResponseTokens)))
	}
	if !ok {
		return false
	}
	if s := out.sample; s != nil && p.addSample(*s) {
		changed = true
	}
	if m := out.msg; m != nil && !p.after(m.ev.At) {
		m.ev.TurnStart = claudeTurnStart(p)
		old, ok := l.messages[m.ev.Key]
		if ok && !old.ev.TurnStart.IsZero() && old.ev.TurnStart.Before(m.ev.TurnStart) {
			m.ev.TurnStart = old.ev.TurnStart
		}
		if !ok || m.better(old) {
			l.messages[m.ev.Key] = m
			changed = true
		} else if old.ev.TurnStart != m.ev.TurnStart {
			old.ev.TurnStart = m.ev.TurnStart
		}
	}
	return changed
}

// claudeTurnStart is where the work of the pass's current response began:
// at the line before it (for streamed copies, before the first copy).
func claudeTurnStart(p *pass) time.Time {
	if p.prev == nil {
		return p.prevAt
	}
	at, _ := lineStamp(p.prev)
	return at
}

// A transcript's messages carry all they need: nothing before a cold
// read's start changes them.
func (l *claudeLog) sawBefore(int64, []byte)                                {}
func (l *claudeLog) carried() string                                        { return "" }
func (l *claudeLog) begin(io.ReaderAt, *scratch, int64, time.Time, Options) {}

func (l *claudeLog) activity(last []byte) (session string, turnEnded bool) {
	if s := gjson.GetBytes(last, "sessionId"); s.Type == gjson.String && s.Str != "" {
		l.session = clean(s.Str)
	}
	return l.session, claudeTurnEnded(last)
}

func (l *claudeLog) held() int { return len(l.messages) }

func (l *claudeLog) prune(from time.Time) {
	maps.DeleteFunc(l.messages, func(_ string, m *claudeMessage) bool { return m.ev.At.Before(from) })
}

func (l *claudeLog) code(c *codec) {
	c.str(&l.session)
	c.str(&l.agent)
	keys := slices.Sorted(maps.Keys(l.messages))
	n := c.count(len(keys), eventSize+2) // and a message id's length, a flag
	var slab []claudeMessage
	if c.reading {
		// Sized once: the index says how many.
		l.messages, slab = make(map[string]*claudeMessage, n), make([]claudeMessage, n)
	}
	for i := range n {
		var m *claudeMessage
		if c.reading {
			m = &slab[i]
		} else {
			m = l.messages[keys[i]]
		}
		c.event(&m.ev)
		// The message id is the key's start (the key adds the request):
		// its length, plus one; zero when it is written whole.
		k := uint64(0)
		if strings.HasPrefix(m.ev.Key, m.msgID) {
			k = uint64(len(m.msgID)) + 1
		}
		switch c.uvarint(&k); {
		case k == 0:
			c.str(&m.msgID)
		case k-1 > uint64(len(m.ev.Key)):
			c.fail("a message id")
		case c.reading:
			m.msgID = m.ev.Key[:k-1]
		}
		c.flag(&m.sidechain)
		if c.err != nil {
			return
		}
		if c.reading {
			l.messages[m.ev.Key] = m
		}
	}
}

// mergeClaude keeps the best copy of each message across files, with the
// login of its file; a subagent's replay of its parent's message (any
// request id) is dropped.
func mergeClaude(logs []format, logins []string, since time.Time, in func(time.Time) bool) []burn.Event {
	n := 0
	for _, l := range logs {
		n += len(l.(*claudeLog).messages)
	}
	parent := make(map[string]bool, n)
	for _, l := range logs {
		for _, msg := range l.(*claudeLog).messages {
			if !msg.sidechain {
				parent[msg.msgID] = true
			}
		}
	}
	type copyOf struct {
		msg   *claudeMessage
		login string
	}
	best := make(map[string]copyOf, n)
	for i, l := range logs {
		for k, msg := range l.(*claudeLog).messages {
			if msg.sidechain && parent[msg.msgID] {
				continue
			}
			if old, ok := best[k]; !ok || msg.beats(old.msg) {
				best[k] = copyOf{msg, logins[i]}
			}
		}
	}
	evs := make([]burn.Event, 0, len(best))
	for _, b := range best {
		if in(b.msg.ev.At) {
			ev := b.msg.ev
			if !ev.TurnStart.IsZero() && ev.TurnStart.Before(since) {
				// Work before since is no read's to know: a read from since
				// sees only the later streamed copies.
				ev.TurnStart = since
			}
			ev.Account = b.login
			evs = append(evs, ev)
		}
	}
	return evs
}

// claudeMessage is the best line seen of one API response (docs/formats.md,
// "Claude streamed copies"): the largest output, then a final line, then the later.
type claudeMessage struct {
	ev        burn.Event
	msgID     string
	sidechain bool
}

// better reports whether m should replace old as the copy of a message.
func (m *claudeMessage) better(old *claudeMessage) bool {
	if m.ev.Tokens.Output != old.ev.Tokens.Output {
		return m.ev.Tokens.Output > old.ev.Tokens.Output
	}
	if m.ev.Final != old.ev.Final {
		return m.ev.Final
	}
	return true // ties: the last
}

// beats is better across files, where there is no "last": the later line.
func (m *claudeMessage) beats(old *claudeMessage) bool {
	if m.ev.Tokens.Output != old.ev.Tokens.Output || m.ev.Final != old.ev.Final {
		return m.better(old)
	}
	return m.ev.At.After(old.ev.At)
}

var (
	claudeUsageMark    = []byte(`"usage"`)
	claudeQuotaMark    = []byte(`quotaLimits`)
	claudeStopMark     = []byte(`"stop_reason"`)
	claudeTurnDuration = []byte(`"turn_duration"`)
)

// claudeWants is the byte prefilter: only lines that may carry usage or a
// limit hit are parsed as JSON.
func claudeWants(line []byte) bool {
	if typ, ok := trailingMember(line, "type"); ok && string(typ) != "assistant" {
		// Only an assistant line has usage; any may be a limit hit.
		return bytes.Contains(line, claudeQuotaMark)
	}
	return bytes.Contains(line, claudeUsageMark) || bytes.Contains(line, claudeQuotaMark)
}

// claudeLine is what one transcript line says, with strings cloned out of
// the read buffer.
type claudeLine struct {
	msg         *claudeMessage // nil: no usage event
	sample      *burn.Sample   // a limit hit
	implausible bool           // a count no response has: skipped, with a warning
}

// sharedStrings are the strings a file repeats on every line (cwd, model,
// session): events share one copy. Kept because cloning each made
// BenchmarkParse/claude 1.4x slower.
type sharedStrings struct {
	recent [4]string
	next   int
}

// get returns s out of the read buffer, printable (clean): a kept copy
// when there is one.
func (c *sharedStrings) get(s string) string {
	if c == nil {
		return clean(s)
	}
	for _, v := range c.recent {
		if v == s {
			return v
		}
	}
	v := clean(s)
	c.recent[c.next] = v
	c.next = (c.next + 1) % len(c.recent)
	return v
}

// parseClaude reads one prefiltered Claude line; fileSession and fileAgent
// (from the path) serve lines that do not say. shared may be nil.
func parseClaude(line []byte, fileSession, fileAgent string, weight float64, shared *sharedStrings) (claudeLine, bool) {
	var out claudeLine
	if line = validLine(line); line == nil {
		return out, false
	}
	f := readClaudeFields(unsafeString(line))
	at, ok := parseStamp(f.stamp.Str)
	if !ok {
		return out, false
	}
	if f.apiError && f.quota.IsObject() {
		out.sample = claudeLimitHit(f.quota, at)
	}
	if f.typ.Str != "assistant" || !f.message.IsObject() {
		return out, out.sample != nil
	}
	m := readClaudeResponse(f.message)
	if m.id.Type != gjson.String || m.id.Str == "" || !m.usage.IsObject() || m.model.Str == "<synthetic>" {
		return out, out.sample != nil
	}
	tok := claudeTokens(m.usage)
	if max(tok.Input, tok.Output, tok.CacheCreation, tok.CacheRead) > burn.MaxResponseTokens {
		out.implausible = true
		return out, out.sample != nil // a limit hit on the line still counts
	}
	out.msg = claudeResponseMessage(&f, &m, tok, at, fileSession, fileAgent, weight, shared)
	return out, true
}

// claudeFields are the members of a Claude line runway reads.
type claudeFields struct {
	typ, session, cwd, agent, requestID, stamp, message, quota gjson.Result
	sidechain, apiError                                        bool
}

// readClaudeFields walks the line's members once (a gjson.Get per member
// would scan the line again for each): this is the hot pass.
func readClaudeFields(s string) claudeFields {
	var f claudeFields
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			f.typ = v
		case "sessionId":
			f.session = v
		case "cwd":
			f.cwd = v
		case "agentId":
			f.agent = v
		case "requestId":
			f.requestID = v
		case "timestamp":
			f.stamp = v
		case "message":
			f.message = v
		case "quotaLimits":
			f.quota = v
		case "isSidechain":
			f.sidechain = v.Type == gjson.True
		case "isApiErrorMessage":
			f.apiError = v.Type == gjson.True
		}
		return true
	})
	return f
}

// claudeResponse are the members of an assistant message runway reads.
type claudeResponse struct{ id, model, stop, usage gjson.Result }

// readClaudeResponse walks the message's members once, as readClaudeFields.
func readClaudeResponse(message gjson.Result) claudeResponse {
	var m claudeResponse
	message.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			m.id = v
		case "model":
			m.model = v
		case "stop_reason":
			m.stop = v
		case "usage":
			m.usage = v
		}
		return true
	})
	return m
}

// claudeTokens reads a response's usage: the four counts runway weighs.
func claudeTokens(usage gjson.Result) burn.Tokens {
	var tok burn.Tokens
	usage.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "input_tokens":
			tok.Input = count(v)
		case "output_tokens":
			tok.Output = count(v)
		case "cache_creation_input_tokens":
			tok.CacheCreation = count(v)
		case "cache_read_input_tokens":
			tok.CacheRead = count(v)
		}
		return true
	})
	return tok
}

// claudeResponseMessage is the response's event, keyed by message and
// request id (one line per content block), credited to the line's session
// and subagent over the file's.
func claudeResponseMessage(f *claudeFields, m *claudeResponse, tok burn.Tokens, at time.Time, fileSession, fileAgent string, weight float64, shared *sharedStrings) *claudeMessage {
	// One copy for the key and the message id.
	key := strings.Clone(m.id.Str)
	msgID := key
	if f.requestID.Type == gjson.String && f.requestID.Str != "" {
		key = m.id.Str + "/" + f.requestID.Str
		msgID = key[:len(m.id.Str)]
	}
	ev := burn.Event{
		Provider: burn.Claude,
		Session:  fileSession,
		Agent:    fileAgent,
		Project:  shared.get(f.cwd.Str),
		Model:    shared.get(m.model.Str),
		At:       at,
		Key:      key,
		Tokens:   tok,
		Weighted: tok.Weighted(weight),
		Final:    m.stop.Type == gjson.String && m.stop.Str != "",
		EndsTurn: stopEndsTurn(m.stop),
	}
	if f.session.Type == gjson.String && f.session.Str != "" {
		ev.Session = shared.get(f.session.Str)
	}
	if f.agent.Type == gjson.String && f.agent.Str != "" {
		ev.Agent = shared.get(f.agent.Str)
	}
	if !f.sidechain && fileAgent == "" {
		ev.Agent = "" // a main-thread line's agentId is stale
	}
	return &claudeMessage{ev: ev, msgID: msgID, sidechain: f.sidechain || fileAgent != ""}
}

// claudeLimitHit turns a limit-hit line's quotaLimits into a sample at
// 100 %, or nil when the window is not one runway knows.
func claudeLimitHit(q gjson.Result, at time.Time) *burn.Sample {
	if st := q.Get("status"); st.Exists() && st.Str != "rejected" {
		return nil
	}
	var class burn.WindowClass
	switch typ := q.Get("rateLimitType").Str; {
	case typ == "five_hour":
		class = burn.FiveHour
	case strings.HasPrefix(typ, "seven_day"):
		class = burn.Weekly
	default:
		return nil
	}
	s := &burn.Sample{
		ObservedAt:    at,
		Provider:      burn.Claude,
		Window:        class,
		WindowMinutes: class.DefaultMinutes(),
		UsedPercent:   100,
		Source:        burn.SourceLimitHit,
	}
	if r := q.Get("resetsAt"); r.Type == gjson.Number {
		s.ResetsAt = jsonsafe.Epoch(r.Num)
	}
	return s
}

// stopEndsTurn: any stop_reason but tool_use hands the turn back; null is
// a copy streamed before the end.
func stopEndsTurn(stop gjson.Result) bool {
	return stop.Type == gjson.String && stop.Str != "" && stop.Str != "tool_use"
}

// claudeTurnEnded reports whether a Claude line ends the agent's turn: a
// final response that stopped for anything but a tool call, or the
// turn_duration note written right after it.
func claudeTurnEnded(line []byte) bool {
	end, dur := bytes.Contains(line, claudeStopMark), bytes.Contains(line, claudeTurnDuration)
	if !end && !dur {
		return false
	}
	s := unsafeString(line)
	switch gjson.Get(s, "type").Str {
	case "assistant":
		// A line Claude Code made itself (a limit hit) says nothing of the turn.
		if !end || gjson.Get(s, "message.model").Str == "<synthetic>" {
			return false
		}
		return stopEndsTurn(gjson.Get(s, "message.stop_reason"))
	case "system":
		return dur && gjson.Get(s, "subtype").Str == "turn_duration"
	}
	return false
}

// claudePathIDs derives the session (and agent) a transcript belongs to
// from its path: <session>.jsonl, or <session>/subagents/**/agent-<id>.jsonl.
func claudePathIDs(path string) (session, agent string) {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 2; i > 0; i-- {
		if parts[i] == "subagents" {
			return clean(parts[i-1]), clean(strings.TrimPrefix(name, "agent-"))
		}
	}
	return clean(name), ""
}
