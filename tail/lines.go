package tail

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"time"
)

// readChunk is how much a reader asks the file for at once: small enough
// that what was just copied is still in the CPU's cache when parsed.
const readChunk = 512 << 10

// scratch is the read buffer of one file's read, handed from reader to
// reader (probes, search, read): a line stays valid until the next reader
// on it starts. A fresh buffer per reader cost a cold start more than parsing.
type scratch struct{ b []byte }

// buf returns n bytes of s, reusing its memory when it has enough.
func (s *scratch) buf(n int) []byte {
	if cap(s.b) < n {
		s.b = make([]byte, n)
	}
	return s.b[:n]
}

// grow returns n bytes of s whose first keep bytes are those of the last
// buf or grow.
func (s *scratch) grow(n, keep int) []byte {
	if cap(s.b) >= n {
		return s.b[:n]
	}
	b := make([]byte, n)
	copy(b, s.b[:keep])
	s.b = b
	return b
}

// countingReader counts the bytes it hands out (Stats.BytesRead).
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// lineReader yields the complete lines of a file from an offset. A line,
// and the line before it, stay valid until the next call. A line longer
// than maxLine is never held whole: the reader streams past it.
type lineReader struct {
	r        io.ReaderAt
	end      int64 // stop at this offset; < 0: at EOF
	maxLine  int
	s        *scratch
	buf      []byte // of s; its length is how much one read asks for
	base     int64  // file offset of buf[0]
	lo, hi   int    // unconsumed bytes are buf[lo:hi]
	prevLo   int    // the previous line is buf[prevLo:prevHi]; prevLo < 0: none
	prevHi   int
	eof      bool
	skipping bool  // inside a line longer than maxLine
	skipFrom int64 // where that line starts
	err      error
	// long is called once for each line longer than maxLine, when it ends.
	long func(off int64)
	// When summing, sum is the CRC-32 of what was consumed, up to summed
	// (readCheck).
	summing bool
	sum     uint32
	summed  int64
}

// sumOnto makes the reader extend sum (the checksum of what came before
// its start) with every byte it consumes.
func (l *lineReader) sumOnto(sum uint32) {
	l.summing, l.sum, l.summed = true, sum, l.base
}

// checksum is sum extended to offset().
func (l *lineReader) checksum() uint32 {
	l.sumTo(l.offset())
	return l.sum
}

// sumTo adds the consumed bytes before off to sum; they are still in buf.
func (l *lineReader) sumTo(off int64) {
	if l.summing && off > l.summed {
		l.sum = crc32.Update(l.sum, crc32.IEEETable, l.buf[l.summed-l.base:off-l.base])
		l.summed = off
	}
}

// newLineReader reads from off, asking for size bytes at first, into s (a
// scratch of its own when nil).
func newLineReader(r io.ReaderAt, s *scratch, off, end int64, maxLine, size int) *lineReader {
	if maxLine+1 < size {
		size = maxLine + 1
	}
	if s == nil {
		s = &scratch{}
	}
	return &lineReader{r: r, end: end, maxLine: maxLine, s: s, buf: s.buf(size), base: off, prevLo: -1, skipFrom: -1}
}

// offset is where the next unread line starts: everything before it was
// consumed (a partial last line is not).
func (l *lineReader) offset() int64 { return l.base + int64(l.lo) }

// next returns the next complete line (without its newline), the line
// before it in this read (nil at the start) and the line's offset.
func (l *lineReader) next() (line, prev []byte, off int64, ok bool) {
	for {
		if i := bytes.IndexByte(l.buf[l.lo:l.hi], '\n'); i >= 0 {
			start := l.lo
			l.lo += i + 1
			if l.skipping || i > l.maxLine {
				// A line longer than maxLine, whether seen whole or not.
				from := l.skipFrom
				if !l.skipping {
					from = l.base + int64(start)
				}
				l.skipping = false
				if l.long != nil {
					l.long(from)
				}
				l.prevLo = -1
				continue
			}
			if l.prevLo >= 0 {
				prev = l.buf[l.prevLo:l.prevHi]
			}
			l.prevLo, l.prevHi = start, start+i
			return l.buf[start : start+i], prev, l.base + int64(start), true
		}
		if !l.skipping && l.hi-l.lo > l.maxLine {
			l.skipping = true
			l.skipFrom = l.base + int64(l.lo)
		}
		if l.skipping {
			// Drop what was seen of the long line; keep streaming.
			l.lo = l.hi
			l.prevLo = -1
		}
		if l.eof || l.err != nil {
			return nil, nil, 0, false
		}
		l.fill()
	}
}

// prevLine is the last line next returned, while the reader lives; nil
// when it was skipped as too long.
func (l *lineReader) prevLine() []byte {
	if l.prevLo < 0 {
		return nil
	}
	return l.buf[l.prevLo:l.prevHi]
}

// fill compacts the buffer (keeping the previous line) and reads more.
func (l *lineReader) fill() {
	keep := l.lo
	if l.prevLo >= 0 && l.prevLo < keep {
		keep = l.prevLo
	}
	if keep > 0 {
		l.sumTo(l.base + int64(keep))
		copy(l.buf, l.buf[keep:l.hi])
		l.base += int64(keep)
		l.lo -= keep
		l.hi -= keep
		if l.prevLo >= 0 {
			l.prevLo -= keep
			l.prevHi -= keep
		}
	}
	if l.hi == len(l.buf) {
		// Grow only as far as a line of maxLine and the previous line need.
		n := 2 * len(l.buf)
		prevLen := 0
		if l.prevLo >= 0 {
			prevLen = l.prevHi - l.prevLo
		}
		if limit := l.maxLine + 1 + prevLen + readChunk; n > limit {
			n = limit
		}
		if n <= len(l.buf) {
			// The previous line fills the buffer: let it go.
			l.prevLo = -1
			l.fill()
			return
		}
		l.buf = l.s.grow(n, l.hi)
	}
	p := l.buf[l.hi:]
	if l.end >= 0 {
		left := l.end - (l.base + int64(l.hi))
		if left <= 0 {
			l.eof = true
			return
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := l.r.ReadAt(p, l.base+int64(l.hi))
	l.hi += n
	switch {
	case errors.Is(err, io.EOF):
		l.eof = true
	case err != nil:
		l.err = err
	case n == 0:
		l.eof = true
	}
}

// boundaryStep is the distance between probes when looking backwards for
// the start of a window: the precise search covers at most this much.
const boundaryStep = 512 << 10

// boundary looks backwards from hi (a line start or the end of complete
// lines) for the last line stamped old, assuming stamps grow through the
// file: it probes a line every boundaryStep bytes, then searches the last
// step line by line. It returns the offset just after that line (0 when no
// line is old) and its stamp. visit, if set, sees each line of that last
// step with its offset; sc is the read buffer (nil: its own).
func boundary(r io.ReaderAt, sc *scratch, hi int64, maxLine int, old func(time.Time) bool, visit func(off int64, line []byte)) (int64, time.Time, error) {
	if sc == nil {
		sc = &scratch{}
	}
	cur := hi // lines starting at or after cur are not old as far as seen
	p := hi
	scan := hi // no line starts in [scan, cur): a probe looks before it
	for p > 0 {
		p = max(p-boundaryStep, 0)
		s, at, ok, err := stampFrom(r, sc, p, scan, cur, maxLine)
		if err != nil {
			return 0, time.Time{}, err
		}
		if s < 0 {
			// One line spans [p, cur): step back without searching it
			// again (a line of many MB would cost its length each step).
			scan = p
			continue
		}
		if ok && old(at) {
			return lastOld(r, sc, s, cur, maxLine, old, visit)
		}
		cur, p, scan = s, s, s
	}
	return 0, time.Time{}, nil
}

// stampFrom finds the first line starting at or after p and before scan
// (≤ limit), and the stamp of the first stamped line from there to limit;
// -1 when no line starts there or none ends before limit. It looks past
// unstamped lines (snapshots): a probe that stopped at one would take the
// lines after it for new, however old they are.
func stampFrom(r io.ReaderAt, sc *scratch, p, scan, limit int64, maxLine int) (int64, time.Time, bool, error) {
	s := p
	if p > 0 {
		var err error
		if s, err = nextLineStart(r, sc, p-1, scan); err != nil || s < 0 {
			return -1, time.Time{}, false, err
		}
	}
	if s >= limit {
		return -1, time.Time{}, false, nil
	}
	lr := newLineReader(r, sc, s, limit, maxLine, probeChunk)
	long := false
	lr.long = func(int64) { long = true }
	for n := 0; ; n++ {
		line, _, _, ok := lr.next()
		if !ok {
			if n == 0 && !long {
				return -1, time.Time{}, false, lr.err
			}
			return s, time.Time{}, false, lr.err
		}
		if at, ok := lineStamp(line); ok {
			return s, at, true, nil
		}
	}
}

// firstLine is the file's first line when it ends before limit and is no
// longer than maxLine, else nil; it is in sc.
func firstLine(r io.ReaderAt, sc *scratch, limit int64, maxLine int) []byte {
	lr := newLineReader(r, sc, 0, limit, maxLine, probeChunk)
	long := false
	lr.long = func(int64) { long = true }
	if line, _, _, ok := lr.next(); ok && !long {
		return line
	}
	return nil
}

// probeChunk is the first read of a probe: most lines are shorter.
const probeChunk = 8 << 10

// nextLineStart returns the offset after the first newline at or after
// from and before limit, streaming (never holding a long line); -1 if none.
func nextLineStart(r io.ReaderAt, sc *scratch, from, limit int64) (int64, error) {
	buf := sc.buf(probeChunk)
	for from < limit {
		p := buf
		if left := limit - from; int64(len(p)) > left {
			p = p[:left]
		}
		n, err := r.ReadAt(p, from)
		if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		from += int64(n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return -1, nil
			}
			return -1, err
		}
		if n == 0 {
			return -1, nil
		}
		if len(buf) < readChunk {
			buf = sc.buf(2 * len(buf)) // ask for more as a line grows long
		}
	}
	return -1, nil
}

// lastOld reads the lines in [s, cur) and returns the offset after the last
// one stamped old, and its stamp.
func lastOld(r io.ReaderAt, sc *scratch, s, cur int64, maxLine int, old func(time.Time) bool, visit func(int64, []byte)) (int64, time.Time, error) {
	lr := newLineReader(r, sc, s, cur, maxLine, readChunk)
	b, bAt := s, time.Time{}
	for {
		line, _, off, ok := lr.next()
		if !ok {
			break
		}
		if visit != nil {
			visit(off, line)
		}
		if at, ok := lineStamp(line); ok && old(at) {
			b, bAt = lr.offset(), at
		}
	}
	return b, bAt, lr.err
}
