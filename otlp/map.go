// Package otlp turns the OpenTelemetry that Claude Code and Codex export
// into the usage events the tailers make from local logs, so a session on
// another machine is counted like a local one.
//
// Decoding and mapping are pure (Decode, mapLogs, mapMetrics); Store keeps
// what arrived, once per response; Receiver is the OTLP/HTTP endpoint.
// Only counts, ids, model, host and project are read: prompt text, tool
// arguments and e-mail addresses never leave the request.
package otlp

import (
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
)

// Key prefixes tell where a remote event came from: a session with log
// events never counts the metric deltas too (they come from the same
// function in Claude Code).
const (
	keyLog    = "otlp-log:"
	keyMetric = "otlp-metric:"
)

// maxText bounds every string kept from a request (ids, model, host,
// project): a sender cannot grow runway's state with long attributes.
const maxText = 200

// Point is one data point of claude_code.token.usage: the tokens of one
// type a session used between Start and At (delta), or since Start
// (cumulative).
type Point struct {
	Session, Host, Model, Project string
	Type                          string // input, output, cacheRead, cacheCreation
	// Series identifies the time series (every attribute of the point and
	// the host): points of one session differ by query_source, speed or
	// effort, and each is counted.
	Series     string
	Value      float64
	Start, At  time.Time
	Cumulative bool
}

// Prompt is a user's prompt to a session (Claude Code's user_prompt,
// Codex's codex.user_prompt): the session's response before it ended its
// turn, and a long gap before the next is the user away.
type Prompt struct {
	Provider burn.Provider
	Session  string
	At       time.Time
}

// Batch is what one request carries that runway counts.
type Batch struct {
	Events  []burn.Event // one per response, from log records
	Prompts []Prompt     // the users' prompts, from log records
	Points  []Point      // token usage data points
	// Rejected counts the usage records that could not be read (a count
	// that is not a number, a missing session); Reason says why the first
	// one was.
	Rejected int
	Reason   string
}

func (b *Batch) reject(reason string) {
	if b.Rejected == 0 {
		b.Reason = reason
	}
	b.Rejected++
}

// mapLogs picks the usage out of log records: Claude Code's api_request
// events and Codex's response.completed SSE events. sender names the
// machine when the resource has no host.name.
func mapLogs(req *logsRequest, sender string, weight float64) Batch {
	var b Batch
	for i := range req.Resources {
		rl := &req.Resources[i]
		res := rl.Resource.Attrs
		for _, sl := range scopes(rl.Scopes, rl.Old) {
			for k := range sl.Records {
				lr := &sl.Records[k]
				attrs := lr.Attrs
				name := eventName(lr)
				var ev burn.Event
				var ok bool
				var reason string
				switch name {
				case "user_prompt", "claude_code.user_prompt", "codex.user_prompt":
					if p, ok := prompt(name, attrs, lr); ok {
						b.Prompts = append(b.Prompts, p)
					}
					continue
				case "api_request", "claude_code.api_request":
					ev, ok, reason = claudeRequest(attrs, lr)
				case "codex.sse_event":
					if str(attrs, "event.kind") != "response.completed" {
						continue
					}
					ev, ok, reason = codexResponse(attrs, lr)
				default:
					continue
				}
				if reason != "" {
					b.reject(reason)
					continue
				}
				if !ok {
					continue // a copy without counts (Codex sends two)
				}
				ev.Host = hostOf(attrs, res, sender)
				ev.Project = first(str(attrs, "project"), str(res, "project"))
				ev.Weighted = ev.Tokens.Weighted(weight)
				ev.Final = true
				b.Events = append(b.Events, ev)
			}
		}
	}
	return b
}

// eventName is the record's event name wherever the exporter put it:
// Claude Code in the body and the event.name attribute, Codex in the
// attribute.
func eventName(lr *logRecord) string {
	if n := str(lr.Attrs, "event.name"); n != "" {
		return n
	}
	if lr.EventName != "" {
		return lr.EventName
	}
	if lr.Body.kind == valueStr {
		return lr.Body.str
	}
	return ""
}

// prompt reads a user_prompt event. One without a session or a time is
// left out: it is no usage, so nothing is refused for it.
func prompt(name string, attrs attrs, lr *logRecord) (Prompt, bool) {
	p := Prompt{Provider: burn.Claude, Session: clean(str(attrs, "session.id")), At: when(attrs, lr)}
	if name == "codex.user_prompt" {
		p.Provider, p.Session = burn.Codex, clean(str(attrs, "conversation.id"))
	}
	return p, p.Session != "" && !p.At.IsZero()
}

// claudeRequest reads an api_request event. Its counts split like a
// transcript's usage: input excludes cache reads and writes.
func claudeRequest(attrs attrs, lr *logRecord) (burn.Event, bool, string) {
	session := clean(str(attrs, "session.id"))
	if session == "" {
		return burn.Event{}, false, "api_request without session.id (is OTEL_METRICS_INCLUDE_SESSION_ID=false?)"
	}
	var tok burn.Tokens
	for _, c := range []struct {
		name string
		to   *int64
	}{
		{"input_tokens", &tok.Input},
		{"output_tokens", &tok.Output},
		{"cache_read_tokens", &tok.CacheRead},
		{"cache_creation_tokens", &tok.CacheCreation},
	} {
		n, ok, bad := count(attrs, c.name)
		if bad {
			return burn.Event{}, false, "api_request " + c.name + " is not a token count"
		}
		if ok {
			*c.to = n
		}
	}
	at := when(attrs, lr)
	if at.IsZero() {
		return burn.Event{}, false, "api_request without a time"
	}
	id := clean(str(attrs, "request_id"))
	if id == "" {
		// The sequence restarts in every process: only with the time is
		// it an identity.
		id = "seq" + str(attrs, "event.sequence") + "@" + at.Format(time.RFC3339Nano)
	}
	ev := burn.Event{
		Provider: burn.Claude,
		Session:  session,
		Model:    clean(str(attrs, "model")),
		At:       at,
		Key:      keyLog + session + "/" + id,
		Tokens:   tok,
	}
	if ms, ok, _ := count(attrs, "duration_ms"); ok && ms > 0 && ms < int64(time.Hour/time.Millisecond) {
		// The request's own span is the work this usage paid for, as a
		// transcript's line before the response is.
		ev.TurnStart = at.Add(-time.Duration(ms) * time.Millisecond)
	}
	return ev, tok != (burn.Tokens{}), ""
}

// codexResponse reads a response.completed SSE event. Codex counts cached
// tokens inside input: split them out as the rollout reader does.
func codexResponse(attrs attrs, lr *logRecord) (burn.Event, bool, string) {
	in, okIn, badIn := count(attrs, "input_token_count")
	out, okOut, badOut := count(attrs, "output_token_count")
	cached, _, badCached := count(attrs, "cached_token_count")
	total, _, badTotal := count(attrs, "tool_token_count") // really total_tokens
	if badIn || badOut || badCached || badTotal {
		return burn.Event{}, false, "response.completed token count is not a number"
	}
	if !okIn && !okOut {
		return burn.Event{}, false, "" // the copy without counts
	}
	session := clean(str(attrs, "conversation.id"))
	if session == "" {
		return burn.Event{}, false, "response.completed without conversation.id"
	}
	at := when(attrs, lr)
	if at.IsZero() {
		return burn.Event{}, false, "response.completed without a time"
	}
	cached = min(cached, in)
	tok := burn.Tokens{Input: in - cached, CacheRead: cached, Output: out}
	id := at.Format(time.RFC3339Nano) + "/" + strconv.FormatInt(total, 10) + "/" + strconv.FormatInt(in, 10) + "/" + strconv.FormatInt(out, 10)
	return burn.Event{
		Provider: burn.Codex,
		Session:  session,
		Model:    clean(str(attrs, "model")),
		At:       at,
		Key:      keyLog + session + "/" + id,
		Tokens:   tok,
	}, tok != (burn.Tokens{}), ""
}

// mapMetrics picks the claude_code.token.usage data points. Codex's
// metrics carry no session, so they cannot be attributed and are left out.
func mapMetrics(req *metricsRequest, sender string) Batch {
	var b Batch
	for i := range req.Resources {
		rm := &req.Resources[i]
		for _, sm := range scopes(rm.Scopes, rm.Old) {
			for _, m := range sm.Metrics {
				if m.Name != "claude_code.token.usage" || m.Sum == nil {
					continue
				}
				// At its size: doubling 100,000 points costs twice their 16 MB.
				b.Points = slices.Grow(b.Points, len(m.Sum.Points))
				for d := range m.Sum.Points {
					p, reason := usagePoint(&m.Sum.Points[d], m.Sum.Temporality == cumulative, rm.Resource.Attrs, sender)
					switch {
					case reason != "":
						b.reject(reason)
					case tokenField(&burn.Tokens{}, p.Type) != nil:
						b.Points = append(b.Points, p)
					}
					// else a type this version does not know: not a count of ours
				}
			}
		}
	}
	return b
}

// usagePoint reads a token.usage data point, or says why it cannot.
func usagePoint(dp *numberPoint, cumulative bool, res attrs, sender string) (Point, string) {
	attrs := dp.Attrs
	p := Point{
		Session:    clean(str(attrs, "session.id")),
		Host:       hostOf(attrs, res, sender),
		Model:      clean(str(attrs, "model")),
		Project:    first(str(attrs, "project"), str(res, "project")),
		Type:       str(attrs, "type"),
		Start:      stamp(dp.Start),
		At:         stamp(dp.At),
		Cumulative: cumulative,
	}
	p.Series = series(p.Host, attrs)
	switch {
	case dp.AsInt.set:
		p.Value = float64(dp.AsInt.v)
	case dp.AsDouble.set:
		p.Value = dp.AsDouble.v
	default:
		return p, "token.usage data point without a value"
	}
	switch {
	case p.Session == "":
		return p, "token.usage without session.id (is OTEL_METRICS_INCLUDE_SESSION_ID=false?)"
	case p.At.IsZero():
		return p, "token.usage data point without a time"
	case math.IsNaN(p.Value) || p.Value < 0 || p.Value > burn.MaxResponseTokens*1000,
		!cumulative && p.Value > burn.MaxResponseTokens:
		// A delta point is what one export interval used: the bound of a
		// response's count, as for log events (a cumulative one is a
		// session's running sum).
		return p, "token.usage value out of range"
	}
	return p, ""
}

// scopes is the scopes an exporter sent, under the new field or the old.
func scopes[S any](scopes, old []S) []S {
	if len(scopes) == 0 {
		return old
	}
	return scopes
}

// series is a short identity of a point's time series.
func series(host string, attrs attrs) string {
	keys := make([]string, 0, len(attrs))
	for _, kv := range attrs {
		keys = append(keys, kv.Key+"="+kv.Value.asString())
	}
	slices.Sort(keys)
	h := fnv.New64a()
	h.Write([]byte(host))
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// tokenField is the count of t a token.usage type adds to; nil for a type
// runway does not weigh.
func tokenField(t *burn.Tokens, typ string) *int64 {
	switch typ {
	case "input":
		return &t.Input
	case "output":
		return &t.Output
	case "cacheRead":
		return &t.CacheRead
	case "cacheCreation":
		return &t.CacheCreation
	}
	return nil
}

// hostOf is the machine a record came from: host.name on the record (Claude
// Code copies resource attributes there), else on the resource, else the
// address that sent it.
func hostOf(attrs, res attrs, sender string) string {
	return first(str(attrs, "host.name"), str(res, "host.name"), sender)
}

func first(s ...string) string {
	for _, x := range s {
		if x = clean(x); x != "" {
			return x
		}
	}
	return ""
}

// str is a string attribute, "" when absent; other types as their text.
func str(m attrs, key string) string {
	v, ok := m.get(key)
	if !ok {
		return ""
	}
	switch v.kind {
	case valueStr:
		return v.str
	case valueInt, valueDouble:
		return v.asString()
	}
	return ""
}

// count reads a token count sent as an int, a double or a decimal string
// (Codex sends some counts as strings). bad: present but not a plausible
// count.
func count(m attrs, key string) (n int64, ok, bad bool) {
	v, found := m.get(key)
	if !found {
		return 0, false, false
	}
	var f float64
	switch v.kind {
	case valueInt:
		f = float64(v.int())
	case valueDouble:
		f = v.float()
	case valueStr:
		s := strings.TrimSpace(v.str)
		if s == "" {
			return 0, false, false
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, true
		}
		f = x
	case valueEmpty:
		return 0, false, false
	default:
		return 0, false, true
	}
	if math.IsNaN(f) || f < 0 || f > burn.MaxResponseTokens {
		return 0, false, true
	}
	return int64(f), true, false
}

// when is the record's time: event.timestamp (Codex leaves the record's
// own time at 0), else the record's time, else when the SDK observed it.
func when(attrs attrs, lr *logRecord) time.Time {
	if s := str(attrs, "event.timestamp"); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.Year() > 2000 && t.Year() < 3000 {
			return t.UTC()
		}
	}
	if t := stamp(lr.Time); !t.IsZero() {
		return t
	}
	return stamp(lr.Observed)
}

// stamp is an OTLP timestamp as a time, zero for 0 and for nonsense.
func stamp(ts nanos) time.Time {
	if ts == 0 || ts > math.MaxInt64 {
		return time.Time{}
	}
	t := time.Unix(0, int64(ts)).UTC()
	if t.Year() < 2000 {
		return time.Time{}
	}
	return t
}

// clean makes a string kept from a request printable and bounded. U+FFFD
// goes too: a JSON decoder writes it for damage another keeps raw (which
// printable drops); the cut comes last, so damage's length cannot move it.
func clean(s string) string {
	s = printable.String(s)
	if strings.ContainsRune(s, utf8.RuneError) {
		s = strings.ReplaceAll(s, string(utf8.RuneError), "")
	}
	return strings.TrimSpace(printable.Cut(strings.TrimSpace(s), maxText))
}
