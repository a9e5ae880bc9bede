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
)

// maxFileWarnings bounds the warnings one file can hold.
const maxFileWarnings = 8

// headerMax bounds the read of a rollout's first line (session_meta can
// be 30 KB).
const headerMax = 1 << 20

// file is one followed session file and what it contributed; what its
// agent's format makes of the lines is in log.
type file struct {
	path     string
	provider burn.Provider
	root     int
	info     os.FileInfo
	opened   bool
	offset   int64     // complete lines before it were read
	skipping bool      // the read stopped inside a line longer than the limit
	skipFrom int64     // where that line starts
	lastAt   time.Time // stamp of the last line read
	// mark is the bytes just before offset, head the first bytes of the
	// last line read (at headAt): if either changes, the file was rewritten
	// in place. Lines of one kind end alike, so the mark alone is not enough.
	mark    []byte
	head    []byte
	headAt  int64
	readMod time.Time // modification time when last read

	// For the index (index.go).
	id       fileID
	idOK     bool
	cold     firstRead
	check    readCheck
	verified ctimeMark // the stat at which the read part last checksummed as read
	dropped  bool
	restored bool

	log        format // the agent's format, with what it carries between reads
	samples    []burn.Sample
	activity   burn.Activity
	warnings   []string
	readFailed bool         // a read failed: the state is not kept (keepable)
	problem    *pathProblem // the file could not be opened
	// damagedAt is when the newest account reading was damaged (zero when
	// it was not): unread unless a newer one came, not kept by the index.
	damagedAt time.Time
}

// newFile starts following path; c.provider is one of formats.
func newFile(path string, c candidate) *file {
	return &file{path: path, provider: c.provider, root: c.root, info: c.info, log: formats[c.provider].open(path)}
}

// warn keeps w once: the same damage on many lines is one warning.
func (f *file) warn(w string) {
	if len(f.warnings) < maxFileWarnings && !slices.Contains(f.warnings, w) {
		f.warnings = append(f.warnings, w)
	}
}

// failRead warns of a read that failed; the index does not keep such a
// file (a cold read would not repeat the warning).
func (f *file) failRead(err error) {
	f.warn(pathWarning("read", f.path, err))
	f.readFailed = true
}

// forget drops the warnings of earlier reads.
func (f *file) forget() {
	f.warnings, f.readFailed, f.damagedAt = nil, false, time.Time{}
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
func (f *file) read(opts Options, from time.Time) (n int64, changed, rewritten bool) {
	fh, err := openRegular(f.path)
	if err != nil {
		return 0, f.failOpen(err), false
	}
	defer fh.Close()
	if f.problem != nil {
		f.problem, changed = nil, true // readable again: its warning goes
	}
	if !f.opened {
		f.forget()
	}
	r := &countingReader{r: fh}
	sc := &scratch{}
	if f.opened && !f.marked(r) {
		return r.n, false, true
	}
	f.readMod = f.info.ModTime()
	p := pass{f: f, weight: opts.CacheReadWeight, until: opts.Until, prevAt: f.lastAt}
	start, end := f.offset, int64(-1)
	if !f.opened {
		if start, end, p.prevAt, err = f.begin(r, sc, opts, from); err != nil {
			f.failRead(err)
			return r.n, true, false
		}
	}
	maxLine := opts.MaxLineBytes
	lr := newLineReader(r, sc, start, end, maxLine, f.chunk(start))
	lr.skipping, lr.skipFrom = f.skipping, f.skipFrom
	var recent stampedEnd
	lr.sumOnto(f.check.sum)
	lr.long = func(off int64) {
		f.warn(warnf("%s: skipped a line longer than %d bytes at offset %d", f.path, maxLine, off))
		changed = true
		recent.skipped()
	}
	lastOff := int64(-1) // where the last line this read returned starts
	for {
		line, prev, off, ok := lr.next()
		if !ok {
			break
		}
		lastOff = off
		recent.add(off, line)
		if f.log.wants(line) {
			p.prev = prev
			if f.log.parse(line, &p) {
				changed = true
			}
		}
	}
	if lr.err != nil {
		f.failRead(lr.err)
		changed = true
	}
	f.offset, f.skipping, f.skipFrom = lr.offset(), lr.skipping, lr.skipFrom
	f.check.sum = lr.checksum()
	f.remember(r, lastOff)
	last := lr.prevLine()
	stamped, known := recent.lastStamped(r, last)
	if f.endedOn(last, stamped, known, lr.offset() > start, &p) {
		changed = true
	}
	return r.n, changed, false
}

// stampedEnd finds a read's last stamped line after the read, when the
// file ends on unstamped lines (a snapshot, junk), so no line needs a full
// search for its stamp while read.
type stampedEnd struct {
	off   int64 // the last line seen stamped cheaply, when has
	n     int
	has   bool
	after []lineSpan // lines since it (or since the read began)
	long  bool       // a line too long to hold was skipped since
}

type lineSpan struct {
	off int64
	n   int
}

func (e *stampedEnd) add(off int64, line []byte) {
	if _, ok, _ := quickStamp(line); ok {
		e.off, e.n, e.has, e.after, e.long = off, len(line), true, e.after[:0], false
		return
	}
	e.after = append(e.after, lineSpan{off, len(line)})
}

func (e *stampedEnd) skipped() { e.has, e.after, e.long = false, e.after[:0], true }

// lastStamped returns the read's last stamped line (last: its last line,
// still in the scratch) and whether the read knows it: nil and true when
// nothing read was stamped; false when a line too long came after it.
func (e *stampedEnd) lastStamped(r io.ReaderAt, last []byte) (line []byte, known bool) {
	read := func(s lineSpan, isLast bool) []byte {
		if isLast {
			return last
		}
		b := make([]byte, s.n)
		if _, err := r.ReadAt(b, s.off); err != nil {
			return nil
		}
		return b
	}
	for i := len(e.after) - 1; i >= 0; i-- {
		if b := read(e.after[i], i == len(e.after)-1); b != nil && hasStamp(b) {
			return b, true
		}
	}
	if e.has {
		return read(lineSpan{e.off, e.n}, len(e.after) == 0), true
	}
	return nil, !e.long
}

// failOpen takes a failure to open the file: a problem in place of its
// warnings. It reports whether Usage changed.
func (f *file) failOpen(err error) bool {
	p := newProblem("open", f.path, err)
	changed := f.problem == nil || *f.problem != p || len(f.warnings) > 0
	f.problem = &p
	f.forget()
	return changed
}

// begin finds the part of the file the first read covers (window) and
// makes the format ready for it; prevAt is the stamp of the line before.
func (f *file) begin(r *countingReader, sc *scratch, opts Options, from time.Time) (start, end int64, prevAt time.Time, err error) {
	f.opened = true
	start, end, prevAt, err = f.window(r, sc, opts, from)
	if err != nil {
		return 0, 0, time.Time{}, err
	}
	f.lastAt = prevAt // the next read's first event began there
	f.log.begin(r, sc, start, prevAt, opts)
	f.cold = firstRead{from: from, start: start, prevAt: prevAt, carried: f.log.carried()}
	return start, end, prevAt, nil
}

// chunk is how much a read from start asks for at once: a follow-up read
// asks for what is there, not readChunk for every appended line.
func (f *file) chunk(start int64) int {
	if left := f.info.Size() - start; left >= 0 && left < readChunk {
		return max(4<<10, int(left)+1)
	}
	return readChunk
}

// remember keeps the bytes marked checks on the next read (lastOff: the
// last line read, -1 when none).
func (f *file) remember(r *countingReader, lastOff int64) {
	f.mark = nil
	if f.offset > 0 {
		f.mark = make([]byte, min(f.offset, markLen))
		if _, err := r.ReadAt(f.mark, f.offset-int64(len(f.mark))); err != nil {
			f.mark = nil
		}
	}
	if lastOff >= 0 {
		f.head, f.headAt = make([]byte, min(f.offset-lastOff, markHead)), lastOff
		if _, err := r.ReadAt(f.head, lastOff); err != nil {
			f.head = nil
		}
	}
}

// endedOn takes the read's last line and last stamped line (lastStamped):
// the stamp the next read's first line comes after, and the file's
// activity, which an unstamped ending leaves at the last stamped line. It
// reports whether the activity changed.
func (f *file) endedOn(last, stamped []byte, known, advanced bool, p *pass) (changed bool) {
	if last != nil && !hasStamp(last) {
		f.lastAt = time.Time{} // as a cold read sees it
	}
	if advanced && stamped == nil && !known && f.activity != (burn.Activity{}) {
		// A line too long to hold ends the file: a cold read has no activity.
		f.activity, changed = burn.Activity{}, true
	}
	if stamped == nil {
		return changed
	}
	at, _ := lineStamp(stamped)
	if last != nil && len(last) == len(stamped) && &last[0] == &stamped[0] {
		f.lastAt = at
	}
	if p.after(at) {
		return changed
	}
	a := burn.Activity{Provider: f.provider, At: at}
	a.Session, a.TurnEnded = f.log.activity(stamped)
	if a != f.activity {
		f.activity = a
		changed = true
	}
	return changed
}

func hasStamp(line []byte) bool {
	_, ok := lineStamp(line)
	return ok
}

// markLen bytes before the offset and markHead of the last line's first
// bytes (a Codex stamp and more) are compared on each read.
const (
	markLen  = 32
	markHead = 64
)

// marked reports whether the bytes before the offset, and the head of the
// last line, are still those read.
func (f *file) marked(r *countingReader) bool {
	same := func(m []byte, at int64) bool {
		if len(m) == 0 {
			return true
		}
		b := make([]byte, len(m))
		_, err := r.ReadAt(b, at)
		return err == nil && string(b) == string(m)
	}
	return same(f.mark, f.offset-int64(len(f.mark))) && same(f.head, f.headAt)
}

// window finds the part of a file a cold read covers, [from, Until], and
// the stamp of the line before it.
func (f *file) window(r *countingReader, sc *scratch, opts Options, from time.Time) (start, end int64, prevAt time.Time, err error) {
	size := f.info.Size()
	end = -1
	hi := size
	if !opts.Until.IsZero() {
		until := opts.Until
		b, _, err := boundary(r, sc, size, opts.MaxLineBytes, func(at time.Time) bool { return !at.After(until) }, nil)
		if err != nil {
			return 0, 0, time.Time{}, fmt.Errorf("find %s: %w", until.Format(time.RFC3339), err)
		}
		end, hi = b, b
	}
	if from.IsZero() || hi == 0 {
		return 0, end, time.Time{}, nil
	}
	if first, ok := firstLineStamp(r, sc, hi, opts.MaxLineBytes); ok && !first.Before(from) {
		// Begun inside the window, as most are: read whole, unless its
		// end is older (stamps that go back), where the search decides.
		if last, ok := lastLineStamp(r, sc, hi); ok && !last.Before(from) {
			return 0, end, time.Time{}, nil
		}
	}
	start, prevAt, err = boundary(r, sc, hi, opts.MaxLineBytes, func(at time.Time) bool { return at.Before(from) }, f.log.sawBefore)
	if err != nil {
		return 0, 0, time.Time{}, fmt.Errorf("find %s: %w", from.Format(time.RFC3339), err)
	}
	return start, end, prevAt, nil
}

// firstStampLines is how many lines firstLineStamp looks at: a transcript
// may open unstamped (a summary, a snapshot).
const firstStampLines = 8

// firstLineStamp is the stamp of the first stamped line among the file's
// first few, reading at most headerMax bytes.
func firstLineStamp(r io.ReaderAt, sc *scratch, hi int64, maxLine int) (time.Time, bool) {
	lr := newLineReader(r, sc, 0, min(hi, headerMax), min(maxLine, headerMax), probeChunk)
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

// lastLineStamp is the stamp of the last complete line before hi when it
// is within the last probeChunk bytes.
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
	f.log.prune(from)
	kept := f.samples[:0]
	for _, s := range f.samples {
		if !s.ObservedAt.Before(from) {
			kept = append(kept, s)
		}
	}
	clear(f.samples[len(kept):])
	f.samples = kept
}
