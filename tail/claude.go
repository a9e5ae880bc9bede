package tail

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
	"github.com/tidwall/gjson"
)

// claudeMessage is the best line seen of one API response, per
// docs/formats.md, "Claude streamed copies": the largest output wins, then a final line, then the later line.
type claudeMessage struct {
	ev        burn.Event
	msgID     string
	sidechain bool
	seq       int64 // order in its file, for ties
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
	claudeEndMark      = []byte(`"end_turn"`)
	claudeTurnDuration = []byte(`"turn_duration"`)
)

// claudeWants is the byte prefilter: only lines that may carry usage or a
// limit hit are parsed as JSON.
func claudeWants(line []byte) bool {
	if typ, ok := trailingMember(line, "type"); ok && string(typ) != "assistant" {
		// Only an assistant line has usage parseClaude reads; any line
		// may be a limit hit. One search, not two, over a tool result.
		return bytes.Contains(line, claudeQuotaMark)
	}
	return bytes.Contains(line, claudeUsageMark) || bytes.Contains(line, claudeQuotaMark)
}

// claudeLine is what one transcript line says, with strings cloned out of
// the read buffer.
type claudeLine struct {
	msg    *claudeMessage // nil: no usage event
	sample *burn.Sample   // a limit hit
	// implausible: the usage has a count no single response can have; the
	// line is skipped and the file gets a warning.
	implausible bool
}

// maxResponseTokens bounds one response's count of any kind: the largest
// context windows hold about a million tokens, so a count a hundred times
// that is a damaged or hostile line, which would otherwise take the whole
// session's share of the burn.
const maxResponseTokens = 1e8

// parseClaude reads one prefiltered Claude line. fileSession and
// fileAgent come from the path, for lines that do not say.
func parseClaude(line []byte, fileSession, fileAgent string, weight float64) (claudeLine, bool) {
	return parseClaudeShared(line, fileSession, fileAgent, weight, nil)
}

// sharedStrings are the strings a file repeats on every line (its cwd,
// model, session): each event shares the copy kept here instead of
// cloning its own out of the read buffer.
type sharedStrings struct {
	recent [4]string
	next   int
}

// get returns s out of the read buffer: a kept copy when there is one.
// What a line says is printed by every surface: it is made printable here
// (a copy in any case), once per distinct string.
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

// parseClaudeShared is parseClaude with the file's shared strings (nil:
// none).
func parseClaudeShared(line []byte, fileSession, fileAgent string, weight float64, shared *sharedStrings) (claudeLine, bool) {
	var out claudeLine
	if !jsonsafe.Valid(line) {
		// A torn line that ran into a complete one: the complete one.
		if line = tornTail(line); line == nil {
			return out, false
		}
	}
	s := unsafeString(line)
	var typ, session, cwd, agent, requestID, stamp, message, quota gjson.Result
	var sidechain, apiError bool
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "sessionId":
			session = v
		case "cwd":
			cwd = v
		case "agentId":
			agent = v
		case "requestId":
			requestID = v
		case "timestamp":
			stamp = v
		case "message":
			message = v
		case "quotaLimits":
			quota = v
		case "isSidechain":
			sidechain = v.Type == gjson.True
		case "isApiErrorMessage":
			apiError = v.Type == gjson.True
		}
		return true
	})
	at, ok := parseStamp(stamp.Str)
	if !ok {
		return out, false
	}
	if apiError && quota.IsObject() {
		out.sample = claudeLimitHit(quota, at)
	}
	if typ.Str != "assistant" || !message.IsObject() {
		return out, out.sample != nil
	}
	var id, model, stop, usage gjson.Result
	message.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			id = v
		case "model":
			model = v
		case "stop_reason":
			stop = v
		case "usage":
			usage = v
		}
		return true
	})
	if id.Type != gjson.String || id.Str == "" || !usage.IsObject() || model.Str == "<synthetic>" {
		return out, out.sample != nil
	}
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
	if max(tok.Input, tok.Output, tok.CacheCreation, tok.CacheRead) > maxResponseTokens {
		out.implausible = true
		return out, out.sample != nil // a limit hit on the line still counts
	}
	// One copy for the key and the message id.
	key := strings.Clone(id.Str)
	msgID := key
	if requestID.Type == gjson.String && requestID.Str != "" {
		key = id.Str + "/" + requestID.Str
		msgID = key[:len(id.Str)]
	}
	ev := burn.Event{
		Provider: burn.Claude,
		Session:  fileSession,
		Agent:    fileAgent,
		Project:  shared.get(cwd.Str),
		Model:    shared.get(model.Str),
		At:       at,
		Key:      key,
		Tokens:   tok,
		Weighted: tok.Weighted(weight),
		Final:    stop.Type == gjson.String && stop.Str != "",
	}
	if session.Type == gjson.String && session.Str != "" {
		ev.Session = shared.get(session.Str)
	}
	if agent.Type == gjson.String && agent.Str != "" {
		ev.Agent = shared.get(agent.Str)
	}
	if !sidechain {
		// A main-thread line can carry a stale agentId from nowhere;
		// only sidechain lines belong to a subagent.
		if fileAgent == "" {
			ev.Agent = ""
		}
	}
	out.msg = &claudeMessage{ev: ev, msgID: msgID, sidechain: sidechain || fileAgent != ""}
	return out, true
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
		s.ResetsAt = epoch(r.Num)
	}
	return s
}

// claudeTurnEnded reports whether a Claude line ends the agent's turn: the
// final end_turn response, or the turn_duration note newer versions write
// right after it.
func claudeTurnEnded(line []byte) bool {
	end, dur := bytes.Contains(line, claudeEndMark), bytes.Contains(line, claudeTurnDuration)
	if !end && !dur {
		return false
	}
	s := unsafeString(line)
	switch gjson.Get(s, "type").Str {
	case "assistant":
		return end && gjson.Get(s, "message.stop_reason").Str == "end_turn"
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
