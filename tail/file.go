package tail

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/tidwall/gjson"
)

// maxFileWarnings bounds the warnings one file can hold.
const maxFileWarnings = 8

// headerMax bounds the read of a rollout's first line (session_meta can
// be 30 KB) when a cold read starts mid-file.
const headerMax = 1 << 20

// file is one followed session file and what it contributed.
type file struct {
	path     string
	provider burn.Provider
	root     int
	info     os.FileInfo
	opened   bool
	offset   int64     // complete lines before it were read
	skipping bool      // the read stopped inside a line longer than the limit
	lastAt   time.Time // stamp of the last line read
	// mark is the bytes just before offset: if they change, the file was
	// rewritten in place (truncated and grown past the offset).
	mark    []byte
	readMod time.Time // modification time when last read
	// workAt is the stamp of the last rollout line that mattered (a turn's
	// context, a token count): where the work a token_count pays for began.
	workAt time.Time
	seq    int64

	// For the index (index.go): the file's identity, how its first read
	// began, whether a prune dropped any of it, and whether its state came
	// from an index and is not checked yet.
	id       fileID
	idOK     bool
	cold     firstRead
	dropped  bool
	restored bool

	session, agent string // from the path
	shared         sharedStrings
	claude         map[string]*claudeMessage
	thread         codexThread
	codex          map[string]burn.Event
	samples        []burn.Sample
	activity       burn.Activity
	warnings       []string
	problem        *pathProblem // the file could not be opened
}

func newFile(path string, c candidate) *file {
	f := &file{path: path, provider: c.provider, root: c.root, info: c.info}
	switch c.provider {
	case burn.Claude:
		f.session, f.agent = claudePathIDs(path)
		f.claude = map[string]*claudeMessage{}
	case burn.Codex:
		f.thread.id = codexPathID(path)
		f.codex = map[string]burn.Event{}
	}
	return f
}

func (f *file) warn(w string) {
	// The same damage on many lines is one warning, leaving room for others.
	if len(f.warnings) < maxFileWarnings && !slices.Contains(f.warnings, w) {
		f.warnings = append(f.warnings, w)
	}
}

// checkRegular refuses anything but a regular file, so a FIFO or a device
// never blocks a read.
func checkRegular(fh *os.File) (*os.File, error) {
	info, err := fh.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// read parses what is new in the file: the first time, only the part
// inside [from, Until]; afterwards the complete lines after the offset.
// It returns the bytes read and whether anything Usage returns changed.
func (f *file) read(opts Options, from time.Time) (n int64, changed, rewritten bool) {
	fh, err := openRegular(f.path)
	if err != nil {
		p := newProblem("open", f.path, err)
		changed := f.problem == nil || *f.problem != p || len(f.warnings) > 0
		f.problem, f.warnings = &p, nil
		return 0, changed, false
	}
	defer fh.Close()
	if f.problem != nil {
		f.problem, changed = nil, true // readable again: its warning goes
	}
	if !f.opened {
		f.warnings = nil
	}
	r := &countingReader{r: fh}
	sc := getScratch()
	defer putScratch(sc)
	if f.opened && !f.marked(r) {
		return r.n, false, true
	}
	f.readMod = f.info.ModTime()
	max := opts.MaxLineBytes
	start, end := f.offset, int64(-1)
	prevAt := f.lastAt
	if !f.opened {
		f.opened = true
		var err error
		start, end, prevAt, err = f.window(r, sc, opts, from)
		if err != nil {
			f.warn(pathWarning("read", f.path, err))
			return r.n, true, false
		}
		// A window with no line yet still has the line before it: the
		// next read's first event began there, as it would in one read.
		f.workAt, f.lastAt = prevAt, prevAt
		f.thread.haveBase = start == 0
		f.cold = firstRead{from: from, start: start, prevAt: prevAt, model: f.thread.model}
		if start > 0 && f.provider == burn.Codex {
			if _, line, _ := lineFrom(r, sc, 0, start, start, min(max, headerMax)); line != nil && codexWants(line) {
				parseCodex(line, &f.thread, opts.CacheReadWeight)
			}
		}
	}

	// A follow-up read is usually a few hundred bytes: asking for what is
	// there (more if more came) spares reading readChunk for every
	// appended line.
	chunk := readChunk
	if left := f.info.Size() - start; left >= 0 && left < int64(chunk) {
		chunk = 4 << 10
		if int(left)+1 > chunk {
			chunk = int(left) + 1
		}
	}
	lr := newLineReader(r, sc, start, end, max, chunk)
	lr.skipping = f.skipping
	lr.long = func(off int64) {
		f.warn(warnf("%s: skipped a line longer than %d bytes at offset %d", f.path, max, off))
		changed = true
	}
	until := opts.Until
	after := func(at time.Time) bool { return !until.IsZero() && at.After(until) }
	turnStart := func(prev []byte) time.Time {
		if prev == nil {
			return prevAt
		}
		at, _ := lineStamp(prev)
		return at
	}
	for {
		line, prev, _, ok := lr.next()
		if !ok {
			break
		}
		switch f.provider {
		case burn.Claude:
			if !claudeWants(line) {
				continue
			}
			out, ok := parseClaudeShared(line, f.session, f.agent, opts.CacheReadWeight, &f.shared)
			if out.implausible {
				f.warn(warnf("%s: skipped a response with more than %d tokens of one kind (a damaged line)", f.path, int64(maxResponseTokens)))
			}
			if !ok {
				continue
			}
			if s := out.sample; s != nil && !after(s.ObservedAt) {
				f.samples = append(f.samples, *s)
				changed = true
			}
			if m := out.msg; m != nil && !after(m.ev.At) {
				f.seq++
				m.seq = f.seq
				m.ev.TurnStart = turnStart(prev)
				old, ok := f.claude[m.ev.Key]
				if ok && !old.ev.TurnStart.IsZero() && old.ev.TurnStart.Before(m.ev.TurnStart) {
					// Streamed copies of one response: its work began
					// before the first copy.
					m.ev.TurnStart = old.ev.TurnStart
				}
				if !ok || m.better(old) {
					f.claude[m.ev.Key] = m
					changed = true
				} else if old.ev.TurnStart != m.ev.TurnStart {
					old.ev.TurnStart = m.ev.TurnStart
				}
			}
		case burn.Codex:
			if !codexWants(line) {
				continue
			}
			out, ok := parseCodex(line, &f.thread, opts.CacheReadWeight)
			if !ok {
				continue
			}
			if out.damaged {
				f.warn(warnf("%s: skipped a used percent outside 0–%d (a damaged line)", f.path, burn.MaxUsedPercent))
			}
			if out.implausible {
				f.warn(warnf("%s: skipped a token count no response could produce (a damaged line)", f.path))
			}
			workAt := f.workAt
			f.workAt = out.at
			for _, s := range out.samples {
				if !after(s.ObservedAt) {
					f.samples = append(f.samples, s)
					changed = true
				}
			}
			if ev := out.event; ev != nil && !after(ev.At) {
				ev.TurnStart = workAt
				f.codex[ev.Key] = *ev
				changed = true
			}
		}
	}
	if lr.err != nil {
		f.warn(pathWarning("read", f.path, lr.err))
		changed = true
	}
	f.offset, f.skipping = lr.offset(), lr.skipping
	f.mark = nil
	if f.offset > 0 {
		f.mark = make([]byte, min(f.offset, markLen))
		if _, err := r.ReadAt(f.mark, f.offset-int64(len(f.mark))); err != nil {
			f.mark = nil
		}
	}
	if last := lr.prevLine(); last != nil {
		if at, ok := lineStamp(last); ok {
			f.lastAt = at
			if !after(at) {
				a := burn.Activity{Provider: f.provider, At: at}
				switch f.provider {
				case burn.Claude:
					// The line's session, like its events'; the file name
					// is only the fallback.
					if s := gjson.GetBytes(last, "sessionId"); s.Type == gjson.String && s.Str != "" {
						f.session = clean(s.Str)
					}
					a.Session, a.TurnEnded = f.session, claudeTurnEnded(last)
				case burn.Codex:
					a.Session, a.TurnEnded = f.thread.id, codexTurnEnded(last)
					if f.thread.parent != "" {
						a.Session = f.thread.parent
					}
				}
				if a != f.activity {
					f.activity = a
					changed = true
				}
			}
		}
	}
	return r.n, changed, false
}

// markLen is how many bytes before the offset are compared on each read.
const markLen = 32

// marked reports whether the bytes before the offset are still those read.
func (f *file) marked(r *countingReader) bool {
	if len(f.mark) == 0 {
		return true
	}
	b := make([]byte, len(f.mark))
	_, err := r.ReadAt(b, f.offset-int64(len(b)))
	return err == nil && string(b) == string(f.mark)
}

// window finds the part of a file a cold read covers: from the first line
// stamped at or after from to the last one stamped at or before Until,
// and the stamp of the line before it.
func (f *file) window(r *countingReader, sc *scratch, opts Options, from time.Time) (start, end int64, prevAt time.Time, err error) {
	size := f.info.Size()
	end = -1
	hi := size
	if !opts.Until.IsZero() {
		until := opts.Until
		b, _, err := boundary(r, sc, size, opts.MaxLineBytes, lineStamp, func(at time.Time) bool { return !at.After(until) }, nil)
		if err != nil {
			return 0, 0, time.Time{}, fmt.Errorf("find %s: %w", until.Format(time.RFC3339), err)
		}
		end, hi = b, b
	}
	if from.IsZero() || hi == 0 {
		return 0, end, time.Time{}, nil
	}
	if first, ok := firstLineStamp(r, sc, hi, opts.MaxLineBytes); ok && !first.Before(from) {
		// Begun inside the window, as most files a cold read opens are:
		// read it whole, without probing it from its end. Unless its end
		// is older (its stamps go back): then the search from the end
		// decides, as it does for any file.
		if last, ok := lastLineStamp(r, sc, hi); ok && !last.Before(from) {
			return 0, end, time.Time{}, nil
		}
	}
	// The turn a window starts in may have named its model just before.
	type named struct {
		off   int64
		model string
	}
	var models []named
	var visit func(int64, []byte)
	if f.provider == burn.Codex {
		visit = func(off int64, line []byte) {
			if codexWants(line) {
				var th codexThread
				if parseCodex(line, &th, 0); th.model != "" {
					models = append(models, named{off, th.model})
				}
			}
		}
	}
	start, prevAt, err = boundary(r, sc, hi, opts.MaxLineBytes, lineStamp, func(at time.Time) bool { return at.Before(from) }, visit)
	if err != nil {
		return 0, 0, time.Time{}, fmt.Errorf("find %s: %w", from.Format(time.RFC3339), err)
	}
	for _, m := range models {
		if m.off < start {
			f.thread.model = m.model
		}
	}
	return start, end, prevAt, nil
}

// firstStampLines is how many lines at a file's start firstLineStamp looks
// at: a transcript may open with a summary or a snapshot, unstamped.
const firstStampLines = 8

// firstLineStamp returns the stamp of the first stamped line among the first
// few of the file (before hi), reading at most headerMax bytes.
func firstLineStamp(r io.ReaderAt, sc *scratch, hi int64, max int) (time.Time, bool) {
	lr := newLineReader(r, sc, 0, min(hi, headerMax), min(max, headerMax), probeChunk)
	for range firstStampLines {
		line, _, _, ok := lr.next()
		if !ok {
			break
		}
		if at, ok := lineStamp(line); ok {
			return at, true
		}
	}
	return time.Time{}, false
}

// lastLineStamp returns the stamp of the last complete line before hi when
// that line is short (within the last probeChunk bytes).
func lastLineStamp(r io.ReaderAt, sc *scratch, hi int64) (time.Time, bool) {
	lo := max(0, hi-probeChunk)
	buf := sc.buf(int(hi - lo))
	n, err := r.ReadAt(buf, lo)
	if n < len(buf) && err != nil {
		return time.Time{}, false
	}
	j := bytes.LastIndexByte(buf, '\n') // the last complete line ends here
	if j < 0 {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(buf[:j], '\n')
	if i < 0 && lo > 0 {
		return time.Time{}, false // longer than what was read
	}
	return lineStamp(buf[i+1 : j])
}

// prune drops what happened before from.
func (f *file) prune(from time.Time) {
	for k, m := range f.claude {
		if m.ev.At.Before(from) {
			delete(f.claude, k)
		}
	}
	for k, ev := range f.codex {
		if ev.At.Before(from) {
			delete(f.codex, k)
		}
	}
	kept := f.samples[:0]
	for _, s := range f.samples {
		if !s.ObservedAt.Before(from) {
			kept = append(kept, s)
		}
	}
	clear(f.samples[len(kept):])
	f.samples = kept
}
