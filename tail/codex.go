package tail

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
	"github.com/agentrunway/runway/internal/printable"
	"github.com/tidwall/gjson"
)

var codexMarks = [][]byte{
	[]byte("token_count"),
	[]byte("session_meta"),
	[]byte("turn_context"),
	[]byte("thread_settings_applied"),
	[]byte("task_complete"),
}

// codexHead is how much of a rollout line holds its envelope type and, for
// event_msg, the payload's type: both come before the payload's content.
const codexHead = 512

var (
	codexPayloadMark = []byte(`"payload":{`)
	codexTypeMark    = []byte(`"type":"`)
	codexEventMark   = []byte(`"event_msg"`)
	// codexLineStart is how Codex begins every rollout line.
	codexLineStart = []byte(`{"timestamp":"`)
)

// codexWants is the byte prefilter: only lines that may matter are parsed.
// It reads the head of a line, where the types are; only a line whose
// payload does not start there is searched whole.
func codexWants(line []byte) bool {
	head := line[:min(len(line), codexHead)]
	for _, m := range codexMarks {
		if bytes.Contains(head, m) {
			return true
		}
	}
	if i := bytes.Index(head, codexPayloadMark); i >= 0 {
		// The envelope's type, and an event_msg's own, are in the head and
		// none matched: not wanted, unless a whole line follows a torn one.
		env := bytes.Index(head[:i], codexTypeMark)
		if env >= 0 && (!bytes.Contains(head[env:i], codexEventMark) || bytes.Contains(head[i:], codexTypeMark)) {
			return bytes.Contains(line[1:], codexLineStart)
		}
	}
	for _, m := range codexMarks {
		if bytes.Contains(line, m) {
			return true
		}
	}
	return false
}

// codexTotals is a cumulative token_usage object.
type codexTotals struct {
	input, cached, output, total int64
}

func readTotals(v gjson.Result) (codexTotals, bool) {
	if !v.IsObject() {
		return codexTotals{}, false
	}
	var t codexTotals
	total, bad := false, false
	v.ForEach(func(k, v gjson.Result) bool {
		var n *int64
		switch k.Str {
		case "input_tokens":
			n = &t.input
		case "cached_input_tokens":
			n = &t.cached
		case "output_tokens":
			n = &t.output
		case "total_tokens":
			n, total = &t.total, true
		default:
			return true
		}
		// Not a number is not a zero: a total dropped to it would count
		// the whole thread again on the next line.
		if v.Type != gjson.Number && v.Type != gjson.Null || v.Type == gjson.Number && v.Num < 0 {
			bad = true
			return false
		}
		*n = count(v)
		return true
	})
	if bad {
		return codexTotals{}, false
	}
	if !total {
		t.total = t.input + t.output
	}
	return t, true
}

// tokens split a usage as burn wants it: Codex counts cached input in input.
func (t codexTotals) tokens() burn.Tokens {
	cached := min(t.cached, t.input)
	return burn.Tokens{Input: t.input - cached, CacheRead: cached, Output: t.output}
}

// sub is the positive part of t − base, per count.
func (t codexTotals) sub(base codexTotals) codexTotals {
	return codexTotals{
		input:  max(t.input-base.input, 0),
		cached: max(t.cached-base.cached, 0),
		output: max(t.output-base.output, 0),
		total:  max(t.total-base.total, 0),
	}
}

// codexLog is a Codex rollout's format state.
type codexLog struct {
	thread codexThread
	workAt time.Time // the last line that mattered: where the next count's work began
	events map[string]burn.Event
	// last is the newest token count's key ("" when past Until): a
	// task_complete after it ends its turn.
	last   string
	models []namedModel // seen by sawBefore, until begin
}

// namedModel is a model a line at off named.
type namedModel struct {
	off   int64
	model string
}

func newCodexLog(path string) format {
	return &codexLog{thread: codexThread{id: codexPathID(path)}, events: map[string]burn.Event{}}
}

func (l *codexLog) wants(line []byte) bool { return codexWants(line) }

func (l *codexLog) parse(line []byte, p *pass) (changed bool) {
	out, ok := parseCodex(line, &l.thread, p.weight)
	if !ok {
		return false
	}
	if out.damaged {
		p.f.warn(warnf("%s: skipped a used percent outside 0–%d (a damaged line)", p.f.path, burn.MaxUsedPercent))
	}
	if out.implausible {
		p.f.warn(warnf("%s: skipped a token count no response could produce (a damaged line)", p.f.path))
	}
	if (out.damaged || len(out.samples) > 0) && !p.after(out.at) {
		p.f.damagedAt = time.Time{}
		if out.damaged {
			p.f.damagedAt = out.at
		}
	}
	workAt := l.workAt
	l.workAt = out.at
	for _, s := range out.samples {
		if p.addSample(s) {
			changed = true
		}
	}
	if ev := out.event; ev != nil {
		l.last = ""
		if !p.after(ev.At) {
			ev.TurnStart = workAt
			l.events[ev.Key] = *ev
			l.last = ev.Key
			changed = true
		}
	}
	if out.turnEnded {
		if ev, ok := l.events[l.last]; ok && !ev.EndsTurn {
			ev.EndsTurn = true
			l.events[l.last] = ev
			changed = true
		}
	}
	return changed
}

// sawBefore keeps the models named near a cold read's start: the turn the
// read starts in may have named it just before.
func (l *codexLog) sawBefore(off int64, line []byte) {
	if codexWants(line) {
		var th codexThread
		if parseCodex(line, &th, 0); th.model != "" {
			l.models = append(l.models, namedModel{off, th.model})
		}
	}
}

// carried is the thread as the lines before the start and the header left it.
func (l *codexLog) carried() string {
	th := &l.thread
	return fmt.Sprintf("%q %q %q %q %v %v %v %v", th.model, th.id, th.parent, th.cwd, th.metaSeen, th.haveBase, th.base, th.jumped)
}

// begin reads the rollout's header (session_meta) when the read starts past it.
func (l *codexLog) begin(r io.ReaderAt, sc *scratch, start int64, prevAt time.Time, opts Options) {
	l.workAt = prevAt
	l.thread.haveBase = start == 0
	for _, m := range l.models {
		if m.off < start {
			l.thread.model = m.model // the last named before the start
		}
	}
	l.models = nil
	if start > 0 {
		if line := firstLine(r, sc, start, min(opts.MaxLineBytes, headerMax)); line != nil && codexWants(line) {
			parseCodex(line, &l.thread, opts.CacheReadWeight)
		}
	}
}

// activity is the thread's, or its parent's for a subagent's rollout.
func (l *codexLog) activity(last []byte) (session string, turnEnded bool) {
	session = l.thread.id
	if l.thread.parent != "" {
		session = l.thread.parent
	}
	return session, codexTurnEnded(last)
}

func (l *codexLog) held() int { return len(l.events) }

func (l *codexLog) prune(from time.Time) {
	maps.DeleteFunc(l.events, func(_ string, ev burn.Event) bool { return ev.At.Before(from) })
}

func (l *codexLog) code(c *codec) {
	c.time(&l.workAt)
	th := &l.thread
	for _, s := range []*string{&th.id, &th.parent, &th.cwd, &th.model} {
		c.str(s)
	}
	c.flag(&th.metaSeen)
	c.flag(&th.haveBase)
	for _, t := range []*codexTotals{&th.base, &th.jumped} {
		for _, n := range []*int64{&t.input, &t.cached, &t.output, &t.total} {
			c.varint(n)
		}
	}
	c.str(&l.last)
	keys := slices.Sorted(maps.Keys(l.events))
	n := c.count(len(keys), eventSize)
	if c.reading {
		l.events = make(map[string]burn.Event, n) // sized once: the index says how many
	}
	for i := range n {
		var ev burn.Event
		if !c.reading {
			ev = l.events[keys[i]]
		}
		if c.event(&ev); c.err != nil {
			return
		}
		if c.reading {
			l.events[ev.Key] = ev
		}
	}
}

// mergeCodex keeps one event per thread and total across files (an
// archived copy repeats them), preferring a copy that names the model.
func mergeCodex(logs []format, _ []string, _ time.Time, in func(time.Time) bool) []burn.Event {
	n := 0
	for _, l := range logs {
		n += len(l.(*codexLog).events)
	}
	events := make(map[string]burn.Event, n)
	for _, l := range logs {
		for k, ev := range l.(*codexLog).events {
			if old, ok := events[k]; !ok || old.Model == "" && ev.Model != "" {
				events[k] = ev
			}
		}
	}
	evs := make([]burn.Event, 0, len(events))
	for _, ev := range events {
		if in(ev.At) {
			evs = append(evs, ev)
		}
	}
	return evs
}

// codexThread is what a rollout says about its thread, carried across reads.
type codexThread struct {
	id, parent, cwd, model string
	metaSeen               bool
	base                   codexTotals
	haveBase               bool // false while a read begun mid-file saw no total
	// jumped is the last total skipped as a jump no response could make
	// (zero: none): totals that moved for good are followed from the
	// second line that agrees.
	jumped codexTotals
}

// codexLine is what one parsed rollout line produced.
type codexLine struct {
	at          time.Time // the line's stamp
	event       *burn.Event
	samples     []burn.Sample
	turnEnded   bool
	damaged     bool // a rate_limits percent out of range was skipped
	implausible bool // a total no thread reaches, or a jump no response makes, was skipped
}

// parseCodex reads one prefiltered rollout line into th's state.
func parseCodex(line []byte, th *codexThread, weight float64) (codexLine, bool) {
	var out codexLine
	if line = validLine(line); line == nil {
		return out, false
	}
	s := string(line)
	var stamp, typ, payload gjson.Result
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "timestamp":
			stamp = v
		case "type":
			typ = v
		case "payload":
			payload = v
		}
		return true
	})
	if !payload.IsObject() {
		return out, false
	}
	at, ok := parseStamp(stamp.Str)
	if !ok {
		return out, false
	}
	out.at = at
	switch typ.Str {
	case "session_meta":
		if !th.metaSeen {
			th.readMeta(payload)
		}
		return out, true
	case "turn_context":
		if m := payload.Get("model"); m.Type == gjson.String && m.Str != "" {
			th.model = clean(m.Str)
		}
		return out, true
	case "event_msg":
		ok := th.eventMsg(payload, at, weight, &out) // before out is read
		return out, ok
	default:
		return out, false
	}
}

// eventMsg reads an event_msg into out: a model change, a turn's end, or a
// token count with the rate limits it carries. False for any other event.
func (th *codexThread) eventMsg(payload gjson.Result, at time.Time, weight float64, out *codexLine) bool {
	switch payload.Get("type").Str {
	case "thread_settings_applied":
		if m := payload.Get("thread_settings.model"); m.Type == gjson.String && m.Str != "" {
			th.model = clean(m.Str)
		}
		return true
	case "task_complete":
		out.turnEnded = true
		return true
	case "token_count":
	default:
		return false
	}
	var info, limits gjson.Result
	payload.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "info":
			info = v
		case "rate_limits":
			limits = v
		}
		return true
	})
	out.samples, out.damaged = codexSamples(limits, at)
	if info.IsObject() {
		out.event, out.implausible = th.usage(info, at, weight)
	}
	return true
}

func (th *codexThread) readMeta(p gjson.Result) {
	th.metaSeen = true
	if id := p.Get("id"); id.Type == gjson.String && id.Str != "" {
		th.id = clean(id.Str)
	}
	th.cwd = clean(p.Get("cwd").Str)
	for _, path := range []string{"source.subagent.thread_spawn.parent_thread_id", "parent_thread_id"} {
		if v := p.Get(path); v.Type == gjson.String && v.Str != "" {
			th.parent = clean(v.Str)
			break
		}
	}
}

// maxThreadTokens bounds a thread's cumulative count of any kind (a
// million responses of a million tokens): more is a damaged line.
const maxThreadTokens = 1e12

// within reports whether no count of t exceeds most.
func (t codexTotals) within(most int64) bool {
	return max(t.input, t.cached, t.output, t.total) <= most
}

// usage turns a token_count's info into the event it paid for: the positive
// delta of the cumulative total. A total that dropped (after a compaction)
// re-bases without an event. A total, last usage or jump beyond
// burn.MaxResponseTokens is damage, never usage, and leaves the base.
func (th *codexThread) usage(info gjson.Result, at time.Time, weight float64) (ev *burn.Event, implausible bool) {
	total, okTotal := readTotals(info.Get("total_token_usage"))
	last, okLast := readTotals(info.Get("last_token_usage"))
	if okTotal && !total.within(maxThreadTokens) {
		return nil, true
	}
	if okLast && !last.within(burn.MaxResponseTokens) {
		okLast, implausible = false, true
	}
	var used codexTotals
	switch {
	case !okTotal && !okLast:
		return nil, implausible
	case !okTotal:
		// No cumulative total: the line's own usage is all there is.
		used = last
		total = codexTotals{total: -1}
	case !th.haveBase:
		// A read that began mid-file: no earlier total to subtract.
		th.base, th.haveBase = total, true
		if !okLast {
			return nil, implausible
		}
		used = last
	case total.total > th.base.total:
		used = total.sub(th.base)
		if !used.within(burn.MaxResponseTokens) {
			prev := th.jumped
			th.jumped = total
			if prev.total == 0 || total.total < prev.total || !total.sub(prev).within(burn.MaxResponseTokens) {
				return nil, true
			}
			// The next line agrees with the jump: count what came after it.
			used = total.sub(prev)
		}
		th.base, th.jumped = total, codexTotals{}
	default:
		if total.total < th.base.total {
			th.base = total
		}
		th.jumped = codexTotals{}
		return nil, implausible
	}
	tok := used.tokens()
	if tok == (burn.Tokens{}) {
		return nil, implausible
	}
	return th.responseEvent(tok, total.total, at, weight), implausible
}

// responseEvent is one response's event, keyed by the thread's running
// total (or the line's time) so a line read twice counts once; a
// subagent's thread counts for its parent.
func (th *codexThread) responseEvent(tok burn.Tokens, total int64, at time.Time, weight float64) *burn.Event {
	ev := &burn.Event{
		Provider: burn.Codex,
		Session:  th.id,
		Project:  th.cwd,
		Model:    th.model,
		At:       at,
		Tokens:   tok,
		Weighted: tok.Weighted(weight),
		Final:    true,
	}
	if th.parent != "" {
		ev.Session, ev.Agent = th.parent, th.id
	}
	if total >= 0 {
		ev.Key = th.id + "@" + strconv.FormatInt(total, 10)
	} else {
		ev.Key = th.id + "@" + at.Format(time.RFC3339Nano)
	}
	return ev
}

// codexSamples reads a rate_limits object in every shape found on disk.
// damaged: a percent was out of range (burn.MaxUsedPercent).
func codexSamples(rl gjson.Result, at time.Time) (samples []burn.Sample, damaged bool) {
	if !rl.IsObject() {
		return nil, false
	}
	if id := rl.Get("limit_id"); id.Exists() && id.Type != gjson.Null && id.Str != "codex" {
		return nil, false // another bucket is a separate quota
	}
	var out []burn.Sample
	// add reads one window: obj's members named prefix+used_percent, ….
	add := func(obj gjson.Result, prefix string, defMinutes int) {
		pct := obj.Get(prefix + "used_percent")
		if pct.Type != gjson.Number {
			return
		}
		var minutes float64 // none: the slot's usual length
		if m := obj.Get(prefix + "window_minutes"); m.Type == gjson.Number {
			minutes = m.Num
		}
		s, ok := burn.NewSample(burn.Codex, burn.SourceCodexLog, at, pct.Num, minutes, defMinutes, time.Time{})
		if !ok {
			damaged = true
			return
		}
		switch resetsAt, resetsIn := obj.Get(prefix+"resets_at"), obj.Get(prefix+"resets_in_seconds"); {
		case resetsAt.Type == gjson.Number:
			s.ResetsAt = jsonsafe.Epoch(resetsAt.Num)
		case resetsAt.Type == gjson.String:
			if t, err := time.Parse(time.RFC3339Nano, resetsAt.Str); err == nil {
				s.ResetsAt = t.UTC()
			}
		case resetsIn.Type == gjson.Number && resetsIn.Num >= 0 && resetsIn.Num < 1e9:
			s.ResetsAt = at.Add(time.Duration(resetsIn.Num * float64(time.Second)))
		}
		out = append(out, s)
	}
	for _, slot := range []struct {
		name string
		def  int
	}{{"primary", 300}, {"secondary", 10080}} {
		if w := rl.Get(slot.name); w.IsObject() {
			add(w, "", slot.def)
		} else {
			add(rl, slot.name+"_", slot.def) // the flat shape of older versions
		}
	}
	add(rl, "weekly_", 10080)
	return out, damaged
}

// codexTurnEnded reports whether a rollout line is a task_complete.
func codexTurnEnded(line []byte) bool {
	if !bytes.Contains(line, codexMarks[4]) {
		return false
	}
	s := string(line)
	return gjson.Get(s, "type").Str == "event_msg" && gjson.Get(s, "payload.type").Str == "task_complete"
}

// codexPathID is the thread id at the end of a rollout's file name:
// rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl.
func codexPathID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) >= 36 && strings.Count(name[len(name)-36:], "-") == 4 {
		return clean(name[len(name)-36:])
	}
	return clean(name)
}

// clean copies a string out of the read buffer, printable: an escape
// sequence in a cwd would otherwise reach the terminal raw.
func clean(s string) string {
	if c := printable.String(s); c != s {
		return c
	}
	return strings.Clone(s)
}

// count reads a token count, never negative, NaN or absurd.
func count(v gjson.Result) int64 {
	if v.Type != gjson.Number || !(v.Num > 0) {
		return 0
	}
	const most = 1e15 // far beyond any real count; keeps sums from overflowing
	if v.Num > most {
		return most
	}
	return int64(v.Num)
}

// parseStamp reads a line's RFC 3339 timestamp.
func parseStamp(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// unsafeString views b as a string without copying; whatever is kept past
// the next read must be cloned. Kept because copying each line made
// BenchmarkParse/claude 1.5x slower.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// lineStamp reads the timestamp of any line of either format.
func lineStamp(line []byte) (time.Time, bool) {
	if t, ok, found := quickStamp(line); found {
		return t, ok
	}
	if v, ok := firstMember(line, "timestamp"); ok {
		return parseStamp(string(v))
	}
	return parseStamp(gjson.Get(string(line), "timestamp").Str)
}

// quickStamp is lineStamp where it is cheap, a stamp first (Codex) or
// last (Claude, but for a tool's result); found false when it is neither.
// (A line with two top-level stamps may give either; no agent writes one.)
func quickStamp(line []byte) (t time.Time, ok, found bool) {
	const prefix = `{"timestamp":"`
	if len(line) > len(prefix)+20 && string(line[:len(prefix)]) == prefix {
		if end := bytes.IndexByte(line[len(prefix):min(len(line), len(prefix)+64)], '"'); end > 0 {
			if t, ok := parseStamp(string(line[len(prefix) : len(prefix)+end])); ok {
				return t, true, true
			}
		}
	}
	if v, ok := trailingMember(line, "timestamp"); ok {
		t, ok := parseStamp(string(v))
		return t, ok, true
	}
	return time.Time{}, false, false
}
