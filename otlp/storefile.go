package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/statedir"
)

// The store's file is one record a line, tab-separated, after a header
// line: a cold `runway now` reads every remote event in it, and 100,000
// events as JSON objects cost over half a second of CPU to decode
// (BenchmarkReadEvents). Times are Unix nanoseconds; a text field holding
// a tab, a line break, a backslash or a leading quote is Go-quoted.
//
//	runway remote 3
//	s	<listen>	<saved ns>
//	q	<signal>	<outcome>	<count>
//	g	<last gRPC refusal ns>
//	c	<series>	<start ns>	<at ns>	<value>
//	p	<provider>	<session>	<at ns>
//	e	<provider>	<session>	<project>	<model>	<host>	<at ns>	<turn start ns or 0>	<key>	<input>	<output>	<cache creation>	<cache read>
//
// Version 2 is the same without the prompts (p), and is read as such.
const storeHeader = "runway remote 3\n"

// storeHeader2 is the header of the version before prompts were kept.
const storeHeader2 = "runway remote 2\n"

// legacyStoreName is the JSON file earlier versions wrote; read when the
// current file is absent, removed once the current one is written.
const legacyStoreName = "remote.json"

// ReceiverState is what the serving process last saved about its
// listener, for `runway doctor`.
type ReceiverState struct {
	// Listen is the address it listened on ("" when not saved).
	Listen string
	// Saved is when the file was written.
	Saved time.Time
	// Requests counts requests by signal and outcome ("ok", "malformed",
	// "grpc", …) since the store was first made.
	Requests map[[2]string]int64
	// LastGRPC is when a gRPC exporter was last refused.
	LastGRPC time.Time
}

// Refused is how many requests were refused, whatever the reason.
func (r ReceiverState) Refused() int64 {
	var n int64
	for k, v := range r.Requests {
		if k[1] != outcomeOK {
			n += v
		}
	}
	return n
}

// Count is the requests with this outcome, every signal.
func (r ReceiverState) Count(outcome string) int64 {
	var n int64
	for k, v := range r.Requests {
		if k[1] == outcome {
			n += v
		}
	}
	return n
}

// OutcomeGRPC is the outcome of a gRPC exporter's request, refused.
const OutcomeGRPC = outcomeGRPC

// storeContent is a store file, read.
type storeContent struct {
	events     []burn.Event
	prompts    []Prompt
	cumulative map[string]cumulativeState
	receiver   ReceiverState
}

// encodeStore writes the file's bytes.
func encodeStore(events []burn.Event, prompts []Prompt, cumulative map[string]cumulativeState, r ReceiverState) []byte {
	b := make([]byte, 0, 64+len(events)*200+len(prompts)*80)
	b = append(b, storeHeader...)
	b = append(b, 's', '\t')
	b = appendText(b, r.Listen)
	b = append(b, '\t')
	b = strconv.AppendInt(b, unixNano(r.Saved), 10)
	b = append(b, '\n')
	for k, n := range r.Requests {
		b = append(b, 'q', '\t')
		b = appendText(b, k[0])
		b = append(b, '\t')
		b = appendText(b, k[1])
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
		b = append(b, '\n')
	}
	if !r.LastGRPC.IsZero() {
		b = append(b, 'g', '\t')
		b = strconv.AppendInt(b, unixNano(r.LastGRPC), 10)
		b = append(b, '\n')
	}
	for k, c := range cumulative {
		b = appendSeries(b, k, c)
	}
	for _, p := range prompts {
		b = appendPrompt(b, p)
	}
	for _, ev := range events {
		b = appendEvent(b, ev)
	}
	return b
}

// appendSeries, appendPrompt and appendEvent write a record's line;
// seriesLine, promptLine and eventLine are its length, which the Store's
// bounds count without writing it.
func appendSeries(b []byte, k string, c cumulativeState) []byte {
	b = append(b, 'c', '\t')
	b = appendText(b, k)
	b = append(b, '\t')
	b = strconv.AppendInt(b, unixNano(c.Start), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, unixNano(c.At), 10)
	b = append(b, '\t')
	b = strconv.AppendFloat(b, c.Value, 'g', -1, 64)
	return append(b, '\n')
}

func seriesLine(k string, c cumulativeState) int {
	var f [32]byte
	return 6 + textLen(k) + intLen(unixNano(c.Start)) + intLen(unixNano(c.At)) + len(strconv.AppendFloat(f[:0], c.Value, 'g', -1, 64))
}

func appendPrompt(b []byte, p Prompt) []byte {
	b = append(b, 'p', '\t')
	b = appendText(b, string(p.Provider))
	b = append(b, '\t')
	b = appendText(b, p.Session)
	b = append(b, '\t')
	b = strconv.AppendInt(b, unixNano(p.At), 10)
	return append(b, '\n')
}

func promptLine(p Prompt) int {
	return 5 + textLen(string(p.Provider)) + textLen(p.Session) + intLen(unixNano(p.At))
}

func appendEvent(b []byte, ev burn.Event) []byte {
	b = append(b, 'e')
	for _, s := range []string{string(ev.Provider), ev.Session, ev.Project, ev.Model, ev.Host} {
		b = append(b, '\t')
		b = appendText(b, s)
	}
	for _, n := range []int64{unixNano(ev.At), unixNano(ev.TurnStart)} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, '\t')
	b = appendText(b, ev.Key)
	for _, n := range []int64{ev.Tokens.Input, ev.Tokens.Output, ev.Tokens.CacheCreation, ev.Tokens.CacheRead} {
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
	}
	return append(b, '\n')
}

func eventLine(ev burn.Event) int {
	n := 14 // 'e', 12 tabs, the line break
	for _, s := range []string{string(ev.Provider), ev.Session, ev.Project, ev.Model, ev.Host, ev.Key} {
		n += textLen(s)
	}
	for _, x := range []int64{unixNano(ev.At), unixNano(ev.TurnStart), ev.Tokens.Input, ev.Tokens.Output, ev.Tokens.CacheCreation, ev.Tokens.CacheRead} {
		n += intLen(x)
	}
	return n
}

// textLen is the length of s as appendText writes it.
func textLen(s string) int {
	if needsQuote(s) {
		return len(strconv.Quote(s))
	}
	return len(s)
}

// intLen is the length of n in decimal.
func intLen(n int64) int {
	if n == 0 {
		return 1
	}
	l := 0
	u := uint64(n)
	if n < 0 {
		l, u = 1, uint64(-n)
	}
	for ; u > 0; u /= 10 {
		l++
	}
	return l
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// appendText appends s as a field: as it is, or quoted when it could be
// taken for a separator or a quoted field.
func appendText(b []byte, s string) []byte {
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuote(s string) bool {
	return strings.ContainsAny(s, "\t\n\r\\") || strings.HasPrefix(s, `"`)
}

// errDamaged marks a file that does not read as a store.
var errDamaged = errors.New("damaged")

// decodeStore reads the file's bytes, weighing events with weight. Only
// events and prompts at or after since are kept (the zero time keeps
// all): an older event is skipped without its fields being read. (A
// response's end of turn depends only on the prompts after it, so what is
// kept is marked as a whole read would mark it.)
func decodeStore(b []byte, weight float64, since time.Time) (storeContent, error) {
	var c storeContent
	prompts := bytes.HasPrefix(b, []byte(storeHeader))
	if !prompts && !bytes.HasPrefix(b, []byte(storeHeader2)) {
		return c, errDamaged
	}
	b = b[len(storeHeader):] // both headers are one length
	// Repeated text (providers, sessions, hosts, models) shares one string.
	intern := map[string]string{}
	text := func(f []byte) (string, bool) {
		if len(f) > 0 && f[0] == '"' {
			s, err := strconv.Unquote(string(f))
			return s, err == nil
		}
		if s, ok := intern[string(f)]; ok {
			return s, true
		}
		if len(intern) < 1<<16 {
			s := string(f)
			intern[s] = s
			return s, true
		}
		return string(f), true
	}
	num := parseInt
	var fields [13][]byte
	horizon := unixNano(since)
	// One allocation for the events, not a copy of them at every doubling.
	c.events = make([]burn.Event, 0, bytes.Count(b, []byte("\ne\t")))
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			return c, errDamaged // torn: a whole file always ends with a line break
		}
		n := 0
		for n < len(fields) {
			i := bytes.IndexByte(line, '\t')
			if i < 0 {
				fields[n] = line
				n++
				break
			}
			fields[n], line = line[:i], line[i+1:]
			n++
		}
		f := fields[:n]
		ok := true
		switch {
		case string(f[0]) == "e" && n == 13:
			at, ok1 := num(f[6])
			if !ok1 {
				return c, errDamaged
			}
			if at < horizon {
				continue
			}
			var ev burn.Event
			var prov string
			var turn int64
			prov, ok = text(f[1])
			ev.Provider = burn.Provider(prov)
			if ok {
				ev.Session, ok = text(f[2])
			}
			if ok {
				ev.Project, ok = text(f[3])
			}
			if ok {
				ev.Model, ok = text(f[4])
			}
			if ok {
				ev.Host, ok = text(f[5])
			}
			if ok {
				turn, ok = num(f[7])
			}
			if ok {
				if len(f[8]) > 0 && f[8][0] == '"' {
					ev.Key, ok = text(f[8])
				} else {
					ev.Key = string(f[8]) // unique: not worth interning
				}
			}
			var tok [4]int64
			for i := range tok {
				if ok {
					tok[i], ok = num(f[9+i])
				}
			}
			if !ok {
				return c, errDamaged
			}
			ev.At, ev.TurnStart = fromUnixNano(at), fromUnixNano(turn)
			ev.Tokens = burn.Tokens{Input: tok[0], Output: tok[1], CacheCreation: tok[2], CacheRead: tok[3]}
			c.events = append(c.events, ev)
		case string(f[0]) == "p" && n == 4 && prompts:
			prov, ok1 := text(f[1])
			session, ok2 := text(f[2])
			at, ok3 := num(f[3])
			if !ok1 || !ok2 || !ok3 {
				return c, errDamaged
			}
			if at >= horizon && at != 0 {
				c.prompts = append(c.prompts, Prompt{Provider: burn.Provider(prov), Session: session, At: fromUnixNano(at)})
			}
		case string(f[0]) == "c" && n == 5:
			k, ok1 := text(f[1])
			start, ok2 := num(f[2])
			at, ok3 := num(f[3])
			v, err := strconv.ParseFloat(string(f[4]), 64)
			if !ok1 || !ok2 || !ok3 || err != nil {
				return c, errDamaged
			}
			if c.cumulative == nil {
				c.cumulative = map[string]cumulativeState{}
			}
			c.cumulative[k] = cumulativeState{Start: fromUnixNano(start), At: fromUnixNano(at), Value: v}
		case string(f[0]) == "s" && n == 3:
			l, ok1 := text(f[1])
			saved, ok2 := num(f[2])
			if !ok1 || !ok2 {
				return c, errDamaged
			}
			c.receiver.Listen, c.receiver.Saved = l, fromUnixNano(saved)
		case string(f[0]) == "q" && n == 4:
			sig, ok1 := text(f[1])
			outcome, ok2 := text(f[2])
			count, ok3 := num(f[3])
			if !ok1 || !ok2 || !ok3 {
				return c, errDamaged
			}
			if c.receiver.Requests == nil {
				c.receiver.Requests = map[[2]string]int64{}
			}
			c.receiver.Requests[[2]string{sig, outcome}] = count
		case string(f[0]) == "g" && n == 2:
			at, ok1 := num(f[1])
			if !ok1 {
				return c, errDamaged
			}
			c.receiver.LastGRPC = fromUnixNano(at)
		default:
			return c, errDamaged
		}
	}
	c.events = checkEvents(c.events, weight)
	c.prompts = checkPrompts(c.prompts)
	return c, nil
}

// parseInt reads a decimal int64 without the string strconv would need.
func parseInt(f []byte) (int64, bool) {
	neg := len(f) > 0 && f[0] == '-'
	if neg {
		f = f[1:]
	}
	// 19 digits hold every int64 and cannot overflow a uint64.
	if len(f) == 0 || len(f) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return int64(-n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// checkEvents drops what no receiver would have kept and makes the text
// printable; it weighs the tokens. The text is made printable first: a
// session named only by spaces or control characters is no session.
func checkEvents(in []burn.Event, weight float64) []burn.Event {
	out := in[:0]
	for _, e := range in {
		e.Session, e.Project, e.Model, e.Host = clean(e.Session), clean(e.Project), clean(e.Model), clean(e.Host)
		tok := e.Tokens
		if e.Provider != burn.Claude && e.Provider != burn.Codex || e.Session == "" || e.At.IsZero() ||
			min(tok.Input, tok.Output, tok.CacheCreation, tok.CacheRead) < 0 {
			continue
		}
		e.Weighted, e.Final = tok.Weighted(weight), true
		out = append(out, e)
	}
	return out
}

// checkPrompts drops what no receiver would have kept, as checkEvents.
func checkPrompts(in []Prompt) []Prompt {
	out := in[:0]
	for _, p := range in {
		p.Session = clean(p.Session)
		if p.Provider != burn.Claude && p.Provider != burn.Codex || p.Session == "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// legacyFile is the JSON form earlier versions saved.
type legacyFile struct {
	Version    int                        `json:"version"`
	Events     []legacyEvent              `json:"events"`
	Cumulative map[string]cumulativeState `json:"cumulative,omitempty"`
}

type legacyEvent struct {
	Provider      burn.Provider `json:"provider"`
	Session       string        `json:"session"`
	Project       string        `json:"project,omitempty"`
	Model         string        `json:"model,omitempty"`
	Host          string        `json:"host"`
	At            time.Time     `json:"at"`
	TurnStart     time.Time     `json:"turn_start,omitzero"`
	Key           string        `json:"key"`
	Input         int64         `json:"input"`
	Output        int64         `json:"output"`
	CacheCreation int64         `json:"cache_creation"`
	CacheRead     int64         `json:"cache_read"`
}

func decodeLegacy(b []byte, weight float64) (storeContent, error) {
	var f legacyFile
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		return storeContent{}, errDamaged
	}
	events := make([]burn.Event, 0, len(f.Events))
	for _, e := range f.Events {
		events = append(events, burn.Event{
			Provider: e.Provider, Session: e.Session, Project: e.Project, Model: e.Model, Host: e.Host,
			At: e.At, TurnStart: e.TurnStart, Key: e.Key,
			Tokens: burn.Tokens{Input: e.Input, Output: e.Output, CacheCreation: e.CacheCreation, CacheRead: e.CacheRead},
		})
	}
	return storeContent{events: checkEvents(events, weight), cumulative: f.Cumulative}, nil
}

// readStore reads dir's store file (the earlier JSON one when it is
// absent): an empty content and no error when neither exists.
func readStore(dir string, weight float64, since time.Time) (storeContent, error) {
	// The state folder's rules: no link followed, another user's file
	// refused (it would feed runway someone else's sessions).
	path := filepath.Join(dir, StoreName)
	b, err := statedir.ReadFile(path, maxStoreBytes)
	decode := func(b []byte) (storeContent, error) { return decodeStore(b, weight, since) }
	if errors.Is(err, fs.ErrNotExist) {
		path = filepath.Join(dir, legacyStoreName)
		b, err = statedir.ReadFile(path, maxStoreBytes)
		decode = func(b []byte) (storeContent, error) { return decodeLegacy(b, weight) }
	}
	// A state folder that is a file holds no remote sessions; the state
	// folder's own warning already says what to do, once.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return storeContent{}, nil
	}
	if err != nil {
		return storeContent{}, fmt.Errorf("remote sessions: %w", err)
	}
	c, err := decode(b)
	if err != nil {
		return storeContent{}, fmt.Errorf("remote sessions: %s is damaged (runway serve rewrites it; delete it to start afresh)", path)
	}
	return c, nil
}
