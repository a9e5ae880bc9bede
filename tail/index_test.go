package tail

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// indexOpts are the options of the index tests: a short lookback and a
// step, so random clocks cross both often.
func indexOpts(roots Roots) Options {
	return Options{Roots: roots, CacheReadWeight: 0.1, Lookback: 2 * time.Hour, WindowStep: 20 * time.Minute}
}

// indexPlay is a random history played on disk: Claude transcripts (with
// streamed copies, subagents, limit hits, junk and lines split across
// writes) and Codex rollouts (model changes, totals that drop, samples),
// appended, truncated, replaced and deleted while a clock moves.
type indexPlay struct {
	t      *rapid.T
	dir    string
	claude string
	codex  string
	now    time.Time
	files  []*playFile
	n      int
}

type playFile struct {
	path    string
	codex   bool
	pending string // the rest of a line split across writes
	msg     int
	total   int64
	id      string
}

func (p *indexPlay) roots() Roots { return Roots{Claude: []string{p.claude}, Codex: []string{p.codex}} }

func (p *indexPlay) stamp() string {
	// Every line a little later than the one before, as agents write.
	p.now = p.now.Add(time.Duration(rapid.IntRange(1, 4000).Draw(p.t, "ms")) * time.Millisecond)
	return p.now.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (p *indexPlay) newFile(codex bool) *playFile {
	p.n++
	f := &playFile{codex: codex, id: fmt.Sprintf("01a22fc0-2222-7000-8000-%012d", p.n)}
	if codex {
		day := p.now.Format("02")
		dir := filepath.Join(p.codex, "sessions", "2026", "12", day)
		os.MkdirAll(dir, 0o755)
		f.path = filepath.Join(dir, "rollout-2026-12-"+day+"T09-00-00-"+f.id+".jsonl")
	} else {
		dir := filepath.Join(p.claude, "projects", "-home-ann-src-app")
		name := f.id + ".jsonl"
		if rapid.IntRange(0, 4).Draw(p.t, "subagent") == 0 && len(p.files) > 0 {
			dir = filepath.Join(dir, "5b1d9f0e-2222-4333-8444-a55566667777", "subagents")
			name = fmt.Sprintf("agent-a%d.jsonl", p.n)
		}
		os.MkdirAll(dir, 0o755)
		f.path = filepath.Join(dir, name)
	}
	p.files = append(p.files, f)
	return f
}

// lines returns some lines the file's agent writes next.
func (p *indexPlay) lines(f *playFile) string {
	var b strings.Builder
	for range rapid.IntRange(1, 6).Draw(p.t, "lines") {
		if f.codex {
			switch rapid.IntRange(0, 9).Draw(p.t, "codex line") {
			case 0:
				fmt.Fprintf(&b, `{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","cwd":"/home/dev/src/demo","source":"cli"}}`+"\n", p.stamp(), f.id)
			case 1, 2:
				model := rapid.SampledFrom([]string{"gpt-5.1-codex", "gpt-5.2-codex", "gpt-5-mini"}).Draw(p.t, "model")
				fmt.Fprintf(&b, `{"timestamp":"%s","type":"turn_context","payload":{"cwd":"/home/dev/src/demo","model":"%s"}}`+"\n", p.stamp(), model)
			case 3:
				fmt.Fprintf(&b, `{"timestamp":"%s","type":"response_item","payload":{"type":"function_call_output","output":"%s"}}`+"\n", p.stamp(), strings.Repeat("x", rapid.IntRange(0, 3000).Draw(p.t, "size")))
			case 4:
				fmt.Fprintf(&b, `{"timestamp":"%s","type":"event_msg","payload":{"type":"task_complete"}}`+"\n", p.stamp())
			default:
				switch rapid.IntRange(0, 19).Draw(p.t, "total") {
				case 0, 1:
					f.total /= 2 // re-estimated after a compaction
				case 2:
					f.total += 3e8 // a jump no response produces (damage)
				default:
					f.total += int64(rapid.IntRange(0, 50000).Draw(p.t, "tokens"))
				}
				last := rapid.Int64Range(0, 50000).Draw(p.t, "last")
				fmt.Fprintf(&b, `{"timestamp":"%s","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"total_tokens":%d},"last_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":1,"total_tokens":%d}},"rate_limits":{"limit_id":"codex","primary":{"used_percent":%d,"window_minutes":300,"resets_at":1796107798},"secondary":null}}}`+"\n",
					p.stamp(), f.total*9/10, f.total/2, f.total/10, f.total, last, last+1, rapid.IntRange(0, 100).Draw(p.t, "pct"))
			}
			continue
		}
		switch rapid.IntRange(0, 9).Draw(p.t, "claude line") {
		case 0, 1:
			fmt.Fprintf(&b, `{"type":"user","sessionId":"5b1d9f0e-2222-4333-8444-a55566667777","cwd":"/home/ann/src/app","message":{"role":"user","content":"%s"},"uuid":"u%d","timestamp":"%s"}`+"\n",
				strings.Repeat("y", rapid.IntRange(0, 3000).Draw(p.t, "size")), p.n, p.stamp())
		case 2:
			// Junk, then two lines (the last maybe split); a truncation
			// can still leave the junk last, and then the file has no
			// activity, read cold or followed (TestEndsOnJunk).
			b.WriteString("{not json\n")
			for range 2 {
				fmt.Fprintf(&b, `{"type":"user","sessionId":"5b1d9f0e-2222-4333-8444-a55566667777","cwd":"/home/ann/src/app","message":{"role":"user","content":"z"},"uuid":"j%d","timestamp":"%s"}`+"\n", p.n, p.stamp())
			}
		case 3:
			fmt.Fprintf(&b, `{"type":"assistant","sessionId":"5b1d9f0e-2222-4333-8444-a55566667777","isApiErrorMessage":true,"quotaLimits":{"status":"rejected","rateLimitType":"five_hour","resetsAt":1796107798},"timestamp":"%s"}`+"\n", p.stamp())
		default:
			// One response, streamed: copies with growing output, the
			// last final.
			f.msg++
			copies := rapid.IntRange(1, 3).Draw(p.t, "copies")
			out := 0
			for c := range copies {
				out += rapid.IntRange(0, 900).Draw(p.t, "out")
				stop := "null"
				if c == copies-1 && rapid.Bool().Draw(p.t, "final") {
					stop = `"end_turn"`
				}
				side := strings.Contains(f.path, "subagents")
				fmt.Fprintf(&b, `{"isSidechain":%v,"cwd":"/home/ann/src/app","sessionId":"5b1d9f0e-2222-4333-8444-a55566667777","message":{"id":"msg_%d_%d","model":"claude-opus-4-5-20251101","stop_reason":%s,"usage":{"input_tokens":4,"cache_creation_input_tokens":%d,"cache_read_input_tokens":5000,"output_tokens":%d}},"requestId":"req_%d","type":"assistant","uuid":"a%d","timestamp":"%s"}`+"\n",
					side, p.n, f.msg, stop, rapid.IntRange(0, 3000).Draw(p.t, "cc"), out, f.msg, f.msg, p.stamp())
			}
		}
	}
	return b.String()
}

// touch sets a file's modification time to the play's clock.
func (p *indexPlay) touch(path string) {
	os.Chtimes(path, p.now, p.now)
}

func (p *indexPlay) appendTo(f *playFile) {
	data := f.pending + p.lines(f)
	f.pending = ""
	switch rapid.IntRange(0, 9).Draw(p.t, "split") {
	case 0, 1:
		// Half a line now, the rest with the next write.
		cut := len(data) - rapid.IntRange(1, 40).Draw(p.t, "cut")
		if cut > 0 {
			data, f.pending = data[:cut], data[cut:]
		}
	case 2:
		// Torn: the writer died inside a line; the next line runs into
		// what it left.
		if cut := len(data) - rapid.IntRange(1, 40).Draw(p.t, "torn"); cut > 0 {
			data = data[:cut]
		}
	}
	h, err := os.OpenFile(f.path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	h.WriteString(data)
	h.Close()
	p.touch(f.path)
}

// step does one random thing to the history.
func (p *indexPlay) step() {
	pick := func() *playFile {
		if len(p.files) == 0 {
			return nil
		}
		return p.files[rapid.IntRange(0, len(p.files)-1).Draw(p.t, "file")]
	}
	switch rapid.IntRange(0, 14).Draw(p.t, "action") {
	case 0:
		p.appendTo(p.newFile(false))
	case 1:
		f := p.newFile(true)
		meta := fmt.Sprintf(`{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","cwd":"/home/dev/src/demo","source":"cli"}}`+"\n", p.stamp(), f.id)
		os.WriteFile(f.path, []byte(meta), 0o644)
		p.appendTo(f)
	case 2, 3, 4, 5, 6:
		if f := pick(); f != nil {
			p.appendTo(f)
		}
	case 7:
		// Truncated in place to a part of it, maybe written on.
		if f := pick(); f != nil {
			b, _ := os.ReadFile(f.path)
			keep := rapid.IntRange(0, len(b)).Draw(p.t, "keep")
			if i := bytes.LastIndexByte(b[:keep], '\n'); i >= 0 {
				keep = i + 1
			} else {
				keep = 0
			}
			os.WriteFile(f.path, b[:keep], 0o644)
			f.pending = ""
			p.touch(f.path)
			if rapid.Bool().Draw(p.t, "regrow") {
				p.appendTo(f)
			}
		}
	case 8:
		// Replaced: a new file (new inode) renamed over it: the same
		// bytes, one edited, or half of it and new lines.
		if f := pick(); f != nil {
			b, _ := os.ReadFile(f.path)
			if rapid.Bool().Draw(p.t, "edit") {
				b = bytes.Replace(b, []byte(`"used_percent":`), []byte(`"used_percent":1`), 1)
			} else {
				b = append(b[:len(b)/2:len(b)/2], p.lines(f)...)
			}
			f.pending = ""
			tmp := f.path + ".tmp"
			os.WriteFile(tmp, b, 0o644)
			os.Rename(tmp, f.path)
			p.touch(f.path)
		}
	case 9:
		if f := pick(); f != nil {
			os.Remove(f.path)
			for i, g := range p.files {
				if g == f {
					p.files = append(p.files[:i], p.files[i+1:]...)
					break
				}
			}
		}
	case 10, 11:
		// Time passes: seconds to hours, across window steps.
		p.now = p.now.Add(time.Duration(rapid.Int64Range(1, int64(3*time.Hour/time.Second)).Draw(p.t, "idle")) * time.Second)
	case 12:
		// A file written long ago and left alone.
		f := p.newFile(rapid.Bool().Draw(p.t, "old codex"))
		saved := p.now
		p.now = p.now.Add(-time.Duration(rapid.IntRange(1, 10).Draw(p.t, "hours ago")) * time.Hour)
		p.appendTo(f)
		f.pending = ""
		p.now = saved
	case 13, 14:
		if f := pick(); f != nil {
			p.rewriteInPlace(f)
		}
	}
}

// rewriteInPlace rewrites a file in place (the same inode), as a program
// saving it whole does: one digit changed anywhere, the file as long or
// grown, its end as it was; the modification time moves on or is put back.
func (p *indexPlay) rewriteInPlace(f *playFile) {
	b, err := os.ReadFile(f.path)
	info, serr := os.Stat(f.path)
	if err != nil || serr != nil {
		return
	}
	var digits []int
	for i, c := range b {
		if c >= '0' && c <= '9' {
			digits = append(digits, i)
		}
	}
	if len(digits) == 0 {
		return
	}
	i := digits[rapid.IntRange(0, len(digits)-1).Draw(p.t, "digit")]
	b[i] = '0' + byte((int(b[i]-'0')+rapid.IntRange(1, 9).Draw(p.t, "by"))%10)
	flags, at := os.O_WRONLY, int64(i)
	if rapid.Bool().Draw(p.t, "truncate") {
		flags, at = flags|os.O_TRUNC, 0 // written whole, as fs.writeFile does
	} else {
		b = b[i : i+1] // just the byte
	}
	h, err := os.OpenFile(f.path, flags, 0)
	if err != nil {
		p.t.Fatal(err)
	}
	h.WriteAt(b, at)
	h.Close()
	p.touch(f.path)
	if rapid.Bool().Draw(p.t, "grow") {
		p.appendTo(f)
	}
	if rapid.Bool().Draw(p.t, "old time") {
		os.Chtimes(f.path, info.ModTime(), info.ModTime())
	}
}

// usageOf is a cold read's answer as runway now would ask it.
func usageOf(t *rapid.T, tl *Tailer, now time.Time) (Usage, []RootStats) {
	if err := tl.Scan(now); err != nil {
		t.Fatal(err)
	}
	return tl.Usage(now.Add(-tl.opts.Lookback)), tl.Stats().Roots
}

// TestIndexEqualsColdRead: over random histories and random sequences of
// appends, truncations, replacements, deletions and clock moves, a Tailer
// restored from the index the previous run saved answers exactly as a
// Tailer that reads the files cold, and saves an index that restores the
// same again.
func TestIndexEqualsColdRead(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "runway-index-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		p := &indexPlay{t: rt, dir: dir, claude: filepath.Join(dir, "claude"), codex: filepath.Join(dir, "codex"),
			now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
		os.MkdirAll(filepath.Join(p.claude, "projects"), 0o755)
		os.MkdirAll(filepath.Join(p.codex, "sessions"), 0o755)
		var index []byte
		// A Tailer that follows the files from the first run on, unbounded
		// (a bounded one prunes what a cold read begun later never saw).
		unbounded := Options{Roots: p.roots(), CacheReadWeight: 0.1}
		live := New(unbounded)
		for i := range rapid.IntRange(1, 40).Draw(rt, "steps") {
			p.step()
			if !rapid.Bool().Draw(rt, "run") {
				continue // the index ages across several changes
			}
			want, wantRoots := usageOf(rt, New(indexOpts(p.roots())), p.now)
			on := New(indexOpts(p.roots()))
			if index != nil {
				if err := on.RestoreIndex(index); err != nil {
					rt.Fatalf("step %d: the index saved by the last run was refused: %v", i, err)
				}
			}
			got, gotRoots := usageOf(rt, on, p.now)
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("step %d at %v: index-on differs from a cold read\n%s", i, p.now, diffUsage(got, want))
			}
			if !reflect.DeepEqual(gotRoots, wantRoots) {
				rt.Fatalf("step %d: roots differ\non:  %+v\noff: %+v", i, gotRoots, wantRoots)
			}
			index = on.Index()
			live.Scan(p.now)
			cold := New(unbounded)
			cold.Scan(p.now)
			if got, want := live.Usage(time.Time{}), cold.Usage(time.Time{}); !reflect.DeepEqual(got, want) {
				rt.Fatalf("step %d at %v: the followed Tailer differs from a cold read\n%s", i, p.now, diffUsage(got, want))
			}
		}
	})
}

// TestIndexReadsOnlyAppended: a second run over files that only grew
// parses the appended bytes (after a window search per grown file), not
// the window again, and gives the cold answer; the part read before is
// only checksummed (a rewrite in place could have changed it), at most
// once.
func TestIndexReadsOnlyAppended(t *testing.T) {
	tr := newTree(t)
	a := tr.claudeFile(sid)
	h := newHistory(3)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f, _ := os.Create(a)
	size := h.claude(f, 8<<20, now.Add(-3*time.Hour), now)
	f.Close()
	os.Chtimes(a, now, now)
	opts := Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 2 * time.Hour, WindowStep: time.Hour}

	first := New(opts)
	first.Scan(now)
	index := first.Index()
	if len(index) == 0 {
		t.Fatal("no index")
	}
	later := now.Add(time.Minute)
	tr.append(a, claudeAssistant(0, "msg_new", 7, "end_turn"))
	os.Chtimes(a, later, later)
	// claudeAssistant stamps from its own base; what matters is the bytes.
	on := New(opts)
	if err := on.RestoreIndex(index); err != nil {
		t.Fatal(err)
	}
	on.Scan(later)
	off := New(opts)
	off.Scan(later)
	if got, want := on.Usage(later.Add(-opts.Lookback)), off.Usage(later.Add(-opts.Lookback)); !reflect.DeepEqual(got, want) {
		t.Fatalf("index-on differs:\n%s", diffUsage(got, want))
	}
	onRead, checked, offRead := on.Stats().BytesRead, on.Stats().BytesChecked, off.Stats().BytesRead
	t.Logf("%d-byte file; cold read %d bytes, with the index %d bytes of which %d checksummed; index %d bytes", size, offRead, onRead, checked, len(index))
	// Besides the appended bytes, the check that a cold read would begin
	// where the first did searches for the window's start (probes, then
	// one step of lines).
	if (onRead-checked)*4 > offRead {
		t.Errorf("with the index the run parsed %d bytes, a cold read %d", onRead-checked, offRead)
	}
	if checked > offRead {
		t.Errorf("with the index the run checksummed %d bytes, more than a cold read reads (%d)", checked, offRead)
	}
}

// TestIndexRefused: an index from another version, for other roots or
// settings, or damaged anywhere is refused whole (never half-used), and
// the Tailer reads as without one.
func TestIndexRefused(t *testing.T) {
	tr := newTree(t)
	a := tr.claudeFile(sid)
	tr.write(a, claudeUser(0)+claudeAssistant(1, "msg_1", 5, "end_turn"))
	r := tr.rollout("01", "01a22fc0-2222-7000-8000-000000000001")
	tr.write(r, codexMeta(0, "01a22fc0-2222-7000-8000-000000000001")+codexCount(5, 1000, 1))
	opts := Options{Roots: tr.roots(), CacheReadWeight: 0.1}
	first := New(opts)
	first.Scan(time.Now())
	index := first.Index()
	if err := New(opts).RestoreIndex(index); err != nil {
		t.Fatalf("a good index refused: %v", err)
	}
	other := opts
	other.CacheReadWeight = 0.2
	cases := map[string]struct {
		b    []byte
		opts Options
	}{
		"empty":         {nil, opts},
		"other options": {index, other},
		"other roots":   {index, Options{Roots: Roots{Claude: []string{tr.claude}}, CacheReadWeight: 0.1}},
		"newer version": {reversion(index, indexVersion+1), opts},
		"older version": {reversion(index, indexVersion-1), opts},
		"truncated":     {index[:len(index)-1], opts},
		"not an index":  {[]byte(`{"json":true}`), opts},
		"historic":      {index, Options{Roots: tr.roots(), CacheReadWeight: 0.1, Until: time.Now()}},
	}
	for i := range index {
		b := bytes.Clone(index)
		b[i] ^= 0x40
		cases[fmt.Sprintf("byte %d flipped", i)] = struct {
			b    []byte
			opts Options
		}{b, opts}
	}
	for name, c := range cases {
		tl := New(c.opts)
		if err := tl.RestoreIndex(c.b); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if len(tl.files) != 0 {
			t.Errorf("%s: refused but kept %d files", name, len(tl.files))
		}
	}
}

// reversion rewrites an index's version, with a valid checksum: only the
// version tells it apart.
func reversion(index []byte, v uint64) []byte {
	c := codec{b: []byte(indexMagic)}
	c.uvarint(&v)
	rest := index[len(indexMagic)+1 : len(index)-4]
	return appendSum(append(c.b, rest...))
}

// FuzzRestoreIndex: no bytes crash RestoreIndex; what it accepts it saves
// again unchanged.
func FuzzRestoreIndex(f *testing.F) {
	dir := f.TempDir()
	claude := filepath.Join(dir, "claude", "projects", "p")
	os.MkdirAll(claude, 0o755)
	os.WriteFile(filepath.Join(claude, sid+".jsonl"), []byte(claudeUser(0)+claudeAssistant(1, "msg_1", 5, "end_turn")), 0o644)
	opts := Options{Roots: Roots{Claude: []string{filepath.Join(dir, "claude")}}, CacheReadWeight: 0.1}
	tl := New(opts)
	tl.Scan(time.Now())
	f.Add(tl.Index())
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		tl := New(opts)
		if tl.RestoreIndex(b) != nil {
			return
		}
		// Accepted bytes decode to files that encode back the same.
		if again := tl.Index(); len(b) > 0 && !bytes.Equal(again, b) && tl.files != nil {
			t2 := New(opts)
			if err := t2.RestoreIndex(again); err != nil {
				t.Fatalf("an index it saved is refused: %v", err)
			}
		}
	})
}

// TestRewrittenSameTail: a rollout truncated in place and written again
// past the offset read, where the bytes just before that offset happen to
// be the same (a session_meta line of the same length: every one ends
// alike), is read again from its start, by a Tailer that follows it and by
// one restored from the index, as a cold read: its token_count's turn
// began at the new session_meta, not the old one. (Found by
// TestIndexEqualsColdRead, seed 12002128062399112500.)
func TestRewrittenSameTail(t *testing.T) {
	tr := newTree(t)
	id := "01a22fc0-2222-7000-8000-000000000005"
	path := tr.rollout("01", id)
	meta := func(stamp string) string {
		return fmt.Sprintf(`{"timestamp":"%s","type":"session_meta","payload":{"id":"%s","cwd":"/home/dev/src/demo","source":"cli"}}`+"\n", stamp, id)
	}
	count := `{"timestamp":"2026-12-01T09:00:03.595Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":6268,"cached_input_tokens":3482,"output_tokens":696,"total_tokens":6965},"last_token_usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":1,"total_tokens":6}},"rate_limits":{"limit_id":"codex","primary":{"used_percent":0,"window_minutes":300,"resets_at":1796107798},"secondary":null}}}` + "\n"
	// A session_meta and half a line: the offset ends after the meta.
	tr.write(path, meta("2026-12-01T09:00:00.039Z")+count[:len(count)-16])
	now := at("2026-12-01T09:00:01Z")
	os.Chtimes(path, now, now)
	opts := indexOpts(tr.roots())
	live := New(opts)
	live.Scan(now)
	index := live.Index()

	tr.rewrite(path, meta("2026-12-01T09:00:03.591Z")+count)
	later := at("2026-12-01T09:00:04Z")
	os.Chtimes(path, later, later)
	cold := New(opts)
	cold.Scan(later)
	if want := cold.Usage(later.Add(-opts.Lookback)); len(want.Events) != 1 || !want.Events[0].TurnStart.Equal(at("2026-12-01T09:00:03.591Z")) {
		t.Fatalf("cold read: %+v", want.Events)
	}
	checkLikeCold(t, opts, index, later, live)
}

// TestEndsOnJunk: a transcript that now ends on a line without a stamp
// (junk; a truncation can leave one last) keeps the activity of its last
// stamped line, read cold or followed from the line before, as a read as
// of an instant does (TestUntilEqualsLive). (Found by
// TestIndexEqualsColdRead, seed 334930.)
func TestEndsOnJunk(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	tr.write(path, claudeUser(0)+claudeAssistant(1, "msg_1", 5, "end_turn"))
	now := at("2026-12-01T09:00:02Z")
	os.Chtimes(path, now, now)
	opts := indexOpts(tr.roots())
	live := New(opts)
	live.Scan(now)
	if u := live.Usage(now.Add(-opts.Lookback)); len(u.Activity) != 1 {
		t.Fatalf("activity before the junk: %+v", u.Activity)
	}
	index := live.Index()
	tr.append(path, "{not json\n")
	later := now.Add(time.Second)
	os.Chtimes(path, later, later)
	checkLikeCold(t, opts, index, later, live)
}

// TestIndexRewrittenInPlace: a transcript rewritten in place (the same
// inode), its end as it was, as long as before (its modification time put
// back) or longer: a Tailer restored from the index, and the one that
// followed it, answer as a cold read (they kept the old events: the bytes
// before the offset and the last line's head were all they compared).
func TestIndexRewrittenInPlace(t *testing.T) {
	for _, grow := range []bool{false, true} {
		tr := newTree(t)
		path := tr.claudeFile(sid)
		var b strings.Builder
		for i := range 10 {
			b.WriteString(claudeUser(10 * i))
			b.WriteString(claudeAssistant(10*i+5, fmt.Sprintf("msg_%02d", i), 500, "end_turn"))
		}
		tr.write(path, b.String())
		now := at("2026-12-01T09:02:00Z")
		os.Chtimes(path, now, now)
		opts := indexOpts(tr.roots())
		first := New(opts)
		first.Scan(now)
		index := first.Index()

		// Saved whole by a program: the middle responses' output went from
		// 500 tokens to 100, the same length.
		data := []byte(b.String())
		for i := 3; i < 7; i++ {
			id := fmt.Sprintf(`"id":"msg_%02d"`, i)
			j := bytes.Index(data, []byte(id))
			k := j + bytes.Index(data[j:], []byte(`"output_tokens":500`))
			copy(data[k:], `"output_tokens":100`)
		}
		later := now.Add(time.Minute)
		if grow {
			data = append(data, claudeAssistant(110, "msg_10", 500, "end_turn")...)
		}
		tr.rewrite(path, string(data))
		if grow {
			os.Chtimes(path, later, later)
		} else {
			os.Chtimes(path, now, now) // as it was
		}
		t.Run(fmt.Sprintf("grown=%v", grow), func(t *testing.T) { checkLikeCold(t, opts, index, later, first) })
	}
}

// TestIndexSettledFileNotRead: a file whose ctime is still the one of its
// read, settled then, is trusted without a byte read; one read too soon
// after a write is checked once, then trusted so.
func TestIndexSettledFileNotRead(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	tr.write(path, claudeUser(0)+claudeAssistant(5, "msg_01", 500, "end_turn"))
	now := at("2026-12-01T09:02:00Z")
	os.Chtimes(path, now, now)
	opts := indexOpts(tr.roots())
	run := func(index []byte, wall time.Time) (*Tailer, []byte) {
		tl := New(opts)
		tl.wall = func() time.Time { return wall }
		if index != nil {
			if err := tl.RestoreIndex(index); err != nil {
				t.Fatal(err)
			}
		}
		tl.Scan(now)
		return tl, tl.Index()
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ctime, ok := changeTimeOf(info)
	if !ok {
		t.Skip("no ctime here")
	}
	// Read within a second of its last write: not settled.
	_, index := run(nil, ctime.Add(time.Second))
	tl, index := run(index, ctime.Add(time.Hour))
	if s := tl.Stats(); s.BytesChecked == 0 {
		t.Errorf("a file read a second after a write: trusted unchecked (%+v)", s)
	}
	tl, _ = run(index, ctime.Add(2*time.Hour))
	if s := tl.Stats(); s.BytesRead != 0 {
		t.Errorf("a settled file left alone: read %d bytes", s.BytesRead)
	}
}

// TestIndexRolloutHeaderRewritten: a rollout's first line, before the
// window, tells a read begun mid-file the thread (its id, folder, the
// total to subtract from); rewritten in place, a cold read reads it anew,
// and so must the index. (Found by TestIndexEqualsColdRead: the first
// line's stamp damaged, its total no longer the base.)
func TestIndexRolloutHeaderRewritten(t *testing.T) {
	for _, edit := range []struct{ name, from, to string }{
		{"session id", `"id":"01a22fc0-2222-7000-8000-000000000001"`, `"id":"01a22fc0-2222-7000-8000-000000000009"`},
		{"folder", `"cwd":"/home/dev/src/demo"`, `"cwd":"/home/dev/src/demx"`},
	} {
		tr := newTree(t)
		path := tr.rollout("01", "01a22fc0-2222-7000-8000-000000000001")
		os.MkdirAll(filepath.Dir(path), 0o755)
		// The header and a count three hours old, then counts inside the
		// two-hour lookback.
		data := codexMeta(-3*3600, "01a22fc0-2222-7000-8000-000000000001") + codexCount(-3*3600+5, 1000, 1) +
			codexCount(0, 2000, 2) + codexCount(60, 3000, 3)
		tr.write(path, data)
		now := at("2026-12-01T09:02:00Z")
		os.Chtimes(path, now, now)
		opts := indexOpts(tr.roots())
		first := New(opts)
		first.Scan(now)
		index := first.Index()

		// Saved whole, the same length, one more count after.
		tr.rewrite(path, strings.Replace(data, edit.from, edit.to, 1)+codexCount(90, 4000, 4))
		later := now.Add(time.Minute)
		os.Chtimes(path, later, later)
		t.Run(edit.name, func(t *testing.T) { checkLikeCold(t, opts, index, later) })
	}
}

// checkLikeCold restores a Tailer from index and scans it and each of
// others at later: each must answer as a cold read then.
func checkLikeCold(t *testing.T, opts Options, index []byte, later time.Time, others ...*Tailer) {
	t.Helper()
	cold := New(opts)
	cold.Scan(later)
	want := cold.Usage(later.Add(-opts.Lookback))
	on := New(opts)
	if err := on.RestoreIndex(index); err != nil {
		t.Fatal(err)
	}
	for i, tl := range append([]*Tailer{on}, others...) {
		tl.Scan(later)
		if got := tl.Usage(later.Add(-opts.Lookback)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: differs from a cold read\n%s", map[bool]string{true: "restored from the index", false: "followed"}[i == 0], diffUsage(got, want))
		}
	}
}

// rewrite writes data over path in place (the same inode), as a program
// saving the file whole does.
func (tr *tree) rewrite(path, data string) {
	tr.t.Helper()
	h, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		tr.t.Fatal(err)
	}
	h.WriteString(data)
	h.Close()
}
