package otlp

import (
	"bytes"
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
// line: a cold `runway now` reads every remote event in it. Times are Unix
// nanoseconds; a text field holding a tab, a line break, a backslash or a
// leading quote is Go-quoted.
//
//	runway remote 3
//	s	<listen>	<saved ns>
//	q	<signal>	<outcome>	<count>
//	g	<last gRPC refusal ns>
//	c	<series>	<start ns>	<at ns>	<value>
//	p	<provider>	<session>	<at ns>
//	e	<provider>	<session>	<project>	<model>	<host>	<at ns>	<turn start ns or 0>	<key>	<input>	<output>	<cache creation>	<cache read>
//
// A file of another version reads as damaged: serve writes it afresh.
const storeHeader = "runway remote 3\n"

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
// bounds count (written on the stack, not kept).
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
	var buf [256]byte
	return len(appendSeries(buf[:0], k, c))
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
	var buf [256]byte
	return len(appendPrompt(buf[:0], p))
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
	var buf [512]byte
	return len(appendEvent(buf[:0], ev))
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

// errDamaged marks a file that does not read as a store: torn, edited, or
// of another version (serve writes it afresh).
var errDamaged = errors.New("damaged")

// decodeStore reads the file's bytes, weighing events with weight. Only
// events and prompts at or after since are kept (the zero time keeps
// all): an older event is skipped without its fields being read. (A
// response's end of turn depends only on the prompts after it, so what is
// kept is marked as a whole read would mark it.)
func decodeStore(b []byte, weight float64, since time.Time) (storeContent, error) {
	b, ok := bytes.CutPrefix(b, []byte(storeHeader))
	if !ok {
		return storeContent{}, errDamaged
	}
	r := storeReader{intern: map[string]string{}, horizon: unixNano(since)}
	// One allocation for the events, not a copy of them at every doubling.
	r.c.events = make([]burn.Event, 0, bytes.Count(b, []byte("\ne\t")))
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok {
			return storeContent{}, errDamaged // torn: a whole file ends with a line break
		}
		b = rest
		if !r.line(line) {
			return storeContent{}, errDamaged
		}
	}
	r.c.events = checkEvents(r.c.events, weight)
	r.c.prompts = checkPrompts(r.c.prompts)
	return r.c, nil
}

// storeReader reads a store file line by line into c; bad is set by the
// first field that does not read.
type storeReader struct {
	c       storeContent
	intern  map[string]string // repeated text (providers, sessions, hosts, models) shares one string
	horizon int64
	fields  [13][]byte
	bad     bool
}

// line reads one record and reports whether it read.
func (r *storeReader) line(line []byte) bool {
	n := 0
	for ; n < len(r.fields)-1; n++ {
		field, rest, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			break
		}
		r.fields[n], line = field, rest
	}
	r.fields[n] = line
	f := r.fields[:n+1]
	switch kind := string(f[0]); {
	case kind == "e" && len(f) == 13:
		r.event(f)
	case kind == "p" && len(f) == 4:
		r.prompt(f)
	case kind == "c" && len(f) == 5:
		r.series(f)
	case kind == "s" && len(f) == 3:
		r.c.receiver.Listen, r.c.receiver.Saved = r.text(f[1]), fromUnixNano(r.num(f[2]))
	case kind == "q" && len(f) == 4:
		if r.c.receiver.Requests == nil {
			r.c.receiver.Requests = map[[2]string]int64{}
		}
		r.c.receiver.Requests[[2]string{r.text(f[1]), r.text(f[2])}] = r.num(f[3])
	case kind == "g" && len(f) == 2:
		r.c.receiver.LastGRPC = fromUnixNano(r.num(f[1]))
	default:
		return false
	}
	return !r.bad
}

func (r *storeReader) event(f [][]byte) {
	at := r.num(f[6])
	if r.bad || at < r.horizon {
		return
	}
	ev := burn.Event{
		Provider: burn.Provider(r.text(f[1])), Session: r.text(f[2]), Project: r.text(f[3]),
		Model: r.text(f[4]), Host: r.text(f[5]), At: fromUnixNano(at), TurnStart: fromUnixNano(r.num(f[7])),
		Tokens: burn.Tokens{Input: r.num(f[9]), Output: r.num(f[10]), CacheCreation: r.num(f[11]), CacheRead: r.num(f[12])},
	}
	if len(f[8]) > 0 && f[8][0] == '"' {
		ev.Key = r.text(f[8])
	} else {
		ev.Key = string(f[8]) // unique: not worth interning
	}
	r.c.events = append(r.c.events, ev)
}

func (r *storeReader) prompt(f [][]byte) {
	prov, session, at := r.text(f[1]), r.text(f[2]), r.num(f[3])
	if at >= r.horizon && at != 0 {
		r.c.prompts = append(r.c.prompts, Prompt{Provider: burn.Provider(prov), Session: session, At: fromUnixNano(at)})
	}
}

func (r *storeReader) series(f [][]byte) {
	k, start, at := r.text(f[1]), r.num(f[2]), r.num(f[3])
	v, err := strconv.ParseFloat(string(f[4]), 64)
	r.bad = r.bad || err != nil
	if r.c.cumulative == nil {
		r.c.cumulative = map[string]cumulativeState{}
	}
	r.c.cumulative[k] = cumulativeState{Start: fromUnixNano(start), At: fromUnixNano(at), Value: v}
}

// text is a text field, unquoted when quoted.
func (r *storeReader) text(f []byte) string {
	if len(f) > 0 && f[0] == '"' {
		s, err := strconv.Unquote(string(f))
		r.bad = r.bad || err != nil
		return s
	}
	if s, ok := r.intern[string(f)]; ok {
		return s
	}
	s := string(f)
	if len(r.intern) < 1<<16 {
		r.intern[s] = s
	}
	return s
}

func (r *storeReader) num(f []byte) int64 {
	n, err := strconv.ParseInt(string(f), 10, 64)
	r.bad = r.bad || err != nil
	return n
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

// readStore reads dir's store file: an empty content and no error when
// there is none.
func readStore(dir string, weight float64, since time.Time) (storeContent, error) {
	// The state folder's rules: no link followed, another user's file
	// refused (it would feed runway someone else's sessions).
	path := filepath.Join(dir, StoreName)
	b, err := statedir.ReadFile(path, maxStoreBytes)
	// A state folder that is a file holds no remote sessions; the state
	// folder's own warning already says what to do, once.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return storeContent{}, nil
	}
	if err != nil {
		return storeContent{}, fmt.Errorf("remote sessions: %w", err)
	}
	c, err := decodeStore(b, weight, since)
	if err != nil {
		return storeContent{}, fmt.Errorf("remote sessions: %s is damaged (runway serve rewrites it; delete it to start afresh)", path)
	}
	return c, nil
}
