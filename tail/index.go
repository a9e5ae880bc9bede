package tail

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
)

// The index is what a Tailer learned from each file, kept between
// processes: a one-shot run restores it, stats the files, reads only what
// was appended since and parses nothing twice.
//
// It lives here, not in the pipeline, because what it holds is this
// package's own: each file's offset, identity and the parser's carry-over
// (a rollout's running total and model, the line before a read, a
// message's best copy so far). The caller only keeps the bytes.
//
// It is a cache: a restored file is used only where a cold read now would
// give the same state, else the file is read as if the index had none of it
// (see trustLocked). Anything unexpected in the bytes (another version,
// other options, damage) refuses the whole index.

// indexMagic starts an index; indexVersion changes whenever the layout or
// the meaning of what is stored changes, and an index of any other version
// is rebuilt.
const (
	indexMagic   = "runway tail index\n"
	indexVersion = 5 // 5: a file's checksum and ctime (readCheck)
)

// MaxIndexBytes bounds the index a caller reads: the lookback of a busy
// machine is a few MB.
const MaxIndexBytes = 64 << 20

// firstRead is how a file's first read began: the window start it was read
// for and what the search for that start found. A later run trusts the
// file's state only when a cold read would begin the same way.
type firstRead struct {
	from    time.Time // the window start
	start   int64     // the offset read from
	prevAt  time.Time // the stamp of the line before start
	carried string    // what the format learned before start (format.carried)
}

// readCheck is what tells a restored file's bytes are still those its
// state came from. The bytes before the offset are not enough: a log
// rewritten in place (the same inode, as long or longer, ending as it did)
// kept stale events. A file written since its read, or read too soon after
// a write to tell by its ctime, has its read part checksummed (a fraction
// of parsing it); one whose ctime is still that of its read is not read.
type readCheck struct {
	sum     uint32    // CRC-32 (IEEE) of [cold.start, offset): what the state came from
	change  time.Time // the file's status-change time (ctime) at its read
	settled bool      // change was settleTime or more before that stat
}

// settleTime: a write within a timestamp tick of the last may leave the
// ctime unchanged (coarse clocks, filesystems keeping 1 or 2 s); a ctime
// that old when stat'd has no such twin, so it moves on any later write.
const settleTime = 2 * time.Second

// stated takes the stat the read followed; wall is the clock before it.
func (c *readCheck) stated(info os.FileInfo, wall time.Time) {
	c.change, c.settled = time.Time{}, false
	if at, ok := changeTimeOf(info); ok {
		c.change, c.settled = at, wall.Sub(at) >= settleTime
	}
}

// unchanged: nothing was written to the file since its read.
func (c *readCheck) unchanged(info os.FileInfo) bool {
	at, ok := changeTimeOf(info)
	return ok && c.settled && at.Equal(c.change)
}

// sumOf is the checksum of the file's bytes in [from, to).
func sumOf(r *countingReader, sc *scratch, from, to int64) (uint32, error) {
	buf := sc.buf(readChunk)
	sum := uint32(0)
	for from < to {
		b := buf[:min(int64(len(buf)), to-from)]
		n, err := r.ReadAt(b, from)
		if n < len(b) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		sum = crc32.Update(sum, crc32.IEEETable, b)
		from += int64(n)
	}
	return sum, nil
}

// indexFingerprint is what the stored state depends on besides the files:
// the same files read with other options give other events.
func (t *Tailer) indexFingerprint() string {
	o := t.opts
	return fmt.Sprintf("claude=%q codex=%q weight=%x maxline=%d lookback=%d step=%d",
		o.Roots.Claude, o.Roots.Codex, math.Float64bits(o.CacheReadWeight), o.MaxLineBytes, o.Lookback, o.WindowStep)
}

// indexable says whether this Tailer's state can be kept: not for a
// historic read (Until), and only where files have an identity to check.
func (t *Tailer) indexable() bool {
	return t.opts.Until.IsZero() && fileIDsKnown
}

// Index returns the state of every file read, for RestoreIndex in a later
// process with the same options; nil when it cannot be kept.
func (t *Tailer) Index() []byte {
	if !t.indexable() {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var e encoder
	e.strs = map[string]uint64{}
	e.time(t.pruned)
	paths := make([]string, 0, len(t.files))
	for p, f := range t.files {
		if f.keepable() {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	e.uvarint(uint64(len(paths)))
	for _, p := range paths {
		e.file(t.files[p])
	}
	body := e.b
	var h encoder
	h.b = append(h.b, indexMagic...)
	h.uvarint(indexVersion)
	h.rawString(t.indexFingerprint())
	h.uvarint(uint64(len(e.table)))
	for _, s := range e.table {
		h.rawString(s)
	}
	return appendSum(append(h.b, body...))
}

// appendSum ends an index with the checksum of what comes before.
func appendSum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// keepable: a file is kept once read, unless a read failed (the failure
// may be gone next time, and a cold read would not repeat its warning).
func (f *file) keepable() bool {
	if !f.opened || f.problem != nil || f.readFailed {
		return false
	}
	if f.info != nil {
		if f.id, f.idOK = fileIDOf(f.info); !f.idOK {
			return false
		}
	}
	return true
}

// errIndexRefused is wrapped by every error of RestoreIndex: the index was
// not used and the files are read as without one.
var errIndexRefused = errors.New("index refused")

// RestoreIndex takes the state an earlier Index saved, before the first
// Scan. An index of another version, for other options or damaged in any
// way is refused whole: the Tailer is left as New made it.
func (t *Tailer) RestoreIndex(b []byte) error {
	if !t.indexable() {
		return fmt.Errorf("%w: not kept for this read", errIndexRefused)
	}
	files, pruned, err := t.decodeIndex(b)
	if err != nil {
		return fmt.Errorf("%w: %v", errIndexRefused, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.files) > 0 {
		return fmt.Errorf("%w: the Tailer has read files already", errIndexRefused)
	}
	for _, f := range files {
		t.files[f.path] = f
	}
	t.pruned = pruned
	t.restored = true
	t.gen++
	t.indexGen = t.gen
	return nil
}

// IndexChanged reports whether Index may differ from the index
// RestoreIndex took (true when none was): something changed or was read.
func (t *Tailer) IndexChanged() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.indexGen == 0 || t.gen != t.indexGen || t.bytesRead != 0
}

func (t *Tailer) decodeIndex(b []byte) (map[string]*file, time.Time, error) {
	if len(b) < len(indexMagic)+4 || string(b[:len(indexMagic)]) != indexMagic {
		return nil, time.Time{}, errors.New("not an index")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, time.Time{}, errors.New("damaged (checksum)")
	}
	d := decoder{b: body[len(indexMagic):]}
	if v := d.uvarint(); d.err == nil && v != indexVersion {
		return nil, time.Time{}, fmt.Errorf("version %d, this runway reads %d", v, indexVersion)
	}
	if fp := d.rawString(); d.err == nil && fp != t.indexFingerprint() {
		return nil, time.Time{}, errors.New("made with other roots or settings")
	}
	n := d.count()
	d.table = make([]string, 0, n)
	for range n {
		d.table = append(d.table, d.rawString())
	}
	pruned := d.time()
	files := map[string]*file{}
	for range d.count() {
		f := d.file()
		if d.err != nil {
			break
		}
		if _, dup := files[f.path]; dup {
			d.fail("a file twice")
			break
		}
		files[f.path] = f
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, time.Time{}, d.err
	}
	return files, pruned, nil
}

// trustLocked decides whether a restored file's state is what a cold read
// would now give, and so may be followed from its offset: the same file
// (device and inode), not shorter, touched inside the window, nothing of
// it pruned yet (a dropped copy of a message could have decided a later
// one), unless nothing changed a cold read beginning where its first read
// began, and unless nothing was written the bytes it came from as they
// were (readCheck).
func (t *Tailer) trustLocked(f *file, c candidate, from time.Time) bool {
	id, ok := fileIDOf(c.info)
	if !ok || !f.idOK || id != f.id || c.info.Size() < f.offset || f.provider != c.provider {
		return false
	}
	if !from.IsZero() && c.info.ModTime().Before(from) {
		return false // a cold read would not open it
	}
	unchanged := f.check.unchanged(c.info)
	if unchanged && c.info.Size() == f.offset && c.info.ModTime().Equal(f.readMod) && from.Equal(f.cold.from) {
		f.info = c.info
		return true
	}
	if f.dropped {
		return false
	}
	fh, err := openRegular(f.path)
	if err != nil {
		return false
	}
	defer fh.Close()
	probe := newFile(f.path, c)
	r := &countingReader{r: fh}
	defer func() { t.bytesRead += r.n }()
	sc := getScratch()
	defer putScratch(sc)
	start, end, prevAt, err := probe.window(r, sc, t.opts, from)
	if err == nil {
		probe.log.begin(r, sc, start, prevAt, t.opts)
	}
	if err != nil || end != -1 || start != f.cold.start || !prevAt.Equal(f.cold.prevAt) || probe.log.carried() != f.cold.carried {
		return false
	}
	if !unchanged {
		read := r.n
		sum, err := sumOf(r, sc, f.cold.start, f.offset)
		t.bytesChecked += r.n - read
		if err != nil || sum != f.check.sum {
			return false // rewritten in place: read as new
		}
		// The bytes are those read, as of this stat: its ctime is the
		// one a later run compares.
		f.check.stated(c.info, t.statWall)
	}
	f.info = c.info
	if !f.cold.from.Equal(from) {
		f.cold.from = from
		t.gen++
	}
	return true
}

// encoder writes the index: varints, strings as indexes into one table
// (a session's id, project and model repeat on every event).
type encoder struct {
	b     []byte
	strs  map[string]uint64
	table []string
}

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) float(v float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }

func (e *encoder) rawString(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) str(s string) {
	i, ok := e.strs[s]
	if !ok {
		i = uint64(len(e.table))
		e.strs[s] = i
		e.table = append(e.table, s)
	}
	e.uvarint(i)
}

// time keeps the instant exactly (every stamp tail makes is UTC).
func (e *encoder) time(t time.Time) {
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

func (e *encoder) event(ev *burn.Event) {
	e.str(string(ev.Provider))
	e.str(ev.Session)
	e.str(ev.Agent)
	e.str(ev.Project)
	e.str(ev.Model)
	e.time(ev.At)
	e.time(ev.TurnStart)
	e.str(ev.Key)
	e.varint(ev.Tokens.Input)
	e.varint(ev.Tokens.Output)
	e.varint(ev.Tokens.CacheCreation)
	e.varint(ev.Tokens.CacheRead)
	e.float(ev.Weighted)
	e.bool(ev.Final)
	e.bool(ev.EndsTurn)
}

func (e *encoder) sample(s *burn.Sample) {
	e.time(s.ObservedAt)
	e.str(string(s.Provider))
	e.str(string(s.Window))
	e.varint(int64(s.WindowMinutes))
	e.float(s.UsedPercent)
	e.time(s.ResetsAt)
	e.str(string(s.Source))
}

func (e *encoder) file(f *file) {
	e.rawString(f.path)
	e.str(string(f.provider))
	e.uvarint(uint64(f.root))
	e.uvarint(f.id.dev)
	e.uvarint(f.id.ino)
	e.varint(f.offset)
	e.bool(f.skipping)
	e.time(f.lastAt)
	e.rawString(string(f.mark))
	e.rawString(string(f.head))
	e.varint(f.headAt)
	e.time(f.readMod)
	e.time(f.cold.from)
	e.varint(f.cold.start)
	e.time(f.cold.prevAt)
	e.str(f.cold.carried)
	e.uvarint(uint64(f.check.sum))
	e.time(f.check.change)
	e.bool(f.check.settled)
	e.bool(f.dropped)

	e.str(string(f.activity.Provider))
	e.str(f.activity.Session)
	e.time(f.activity.At)
	e.bool(f.activity.TurnEnded)

	e.uvarint(uint64(len(f.warnings)))
	for _, w := range f.warnings {
		e.str(w)
	}
	e.uvarint(uint64(len(f.samples)))
	for i := range f.samples {
		e.sample(&f.samples[i])
	}
	f.log.encode(e)
}

// decoder reads what encoder wrote; the first error sticks and every read
// after it returns zero values.
type decoder struct {
	b     []byte
	table []string
	err   error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = errors.New("damaged (" + why + ")")
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("a number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("a number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items, each at least a byte long.
func (d *decoder) count() int { return d.countOf(1) }

// countOf reads a count of items that each take at least size bytes: a
// count the rest of the index cannot hold is damage, so that what is sized
// by it is bounded by the file's length.
func (d *decoder) countOf(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.fail("a count")
		return 0
	}
	return int(n)
}

// eventSize is the fewest bytes event reads: six strings' table numbers,
// two times (seconds and nanoseconds), four token counts, the weight and
// two flags.
const eventSize = 6 + 2*2 + 4 + 8 + 2

func (d *decoder) bool() bool {
	if len(d.b) < 1 || d.b[0] > 1 {
		d.fail("a flag")
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.fail("a number")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) rawString() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) str() string {
	i := d.uvarint()
	if i >= uint64(len(d.table)) {
		d.fail("a string")
		return ""
	}
	return d.table[i]
}

func (d *decoder) time() time.Time {
	sec, nsec := d.varint(), d.uvarint()
	if nsec >= 1e9 {
		d.fail("a time")
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

func (d *decoder) tokens() burn.Tokens {
	return burn.Tokens{Input: d.varint(), Output: d.varint(), CacheCreation: d.varint(), CacheRead: d.varint()}
}

func (d *decoder) event() burn.Event {
	var ev burn.Event
	ev.Provider = burn.Provider(d.str())
	ev.Session, ev.Agent, ev.Project, ev.Model = d.str(), d.str(), d.str(), d.str()
	ev.At, ev.TurnStart = d.time(), d.time()
	ev.Key = d.str()
	ev.Tokens = d.tokens()
	ev.Weighted = d.float()
	ev.Final = d.bool()
	ev.EndsTurn = d.bool()
	return ev
}

func (d *decoder) sample() burn.Sample {
	var s burn.Sample
	s.ObservedAt = d.time()
	s.Provider, s.Window = burn.Provider(d.str()), burn.WindowClass(d.str())
	s.WindowMinutes = int(d.varint())
	s.UsedPercent = d.float()
	s.ResetsAt = d.time()
	s.Source = burn.Source(d.str())
	return s
}

func (d *decoder) file() *file {
	path := d.rawString()
	provider := burn.Provider(d.str())
	if _, ok := formats[provider]; !ok {
		d.fail("a provider")
		return nil
	}
	f := newFile(path, candidate{provider: provider, root: int(d.uvarint())})
	f.opened, f.restored = true, true
	f.id, f.idOK = fileID{dev: d.uvarint(), ino: d.uvarint()}, true
	f.offset = d.varint()
	f.skipping = d.bool()
	f.lastAt = d.time()
	if m := d.rawString(); m != "" {
		f.mark = []byte(m)
	}
	if h := d.rawString(); h != "" {
		f.head = []byte(h)
	}
	f.headAt = d.varint()
	f.readMod = d.time()
	f.cold = firstRead{from: d.time(), start: d.varint(), prevAt: d.time(), carried: d.str()}
	if sum := d.uvarint(); sum > math.MaxUint32 {
		d.fail("a checksum")
	} else {
		f.check.sum = uint32(sum)
	}
	f.check.change, f.check.settled = d.time(), d.bool()
	f.dropped = d.bool()
	if f.offset < 0 || f.cold.start < 0 || f.cold.start > f.offset || len(f.mark) > markLen || int64(len(f.mark)) > f.offset ||
		len(f.head) > markHead || f.headAt < 0 || f.headAt+int64(len(f.head)) > f.offset {
		d.fail("an offset")
	}

	f.activity.Provider, f.activity.Session = burn.Provider(d.str()), d.str()
	f.activity.At, f.activity.TurnEnded = d.time(), d.bool()

	for range d.count() {
		f.warnings = append(f.warnings, d.str())
	}
	for range d.count() {
		f.samples = append(f.samples, d.sample())
	}
	f.log.decode(d)
	return f
}

// fileID is a file's identity on its device: a replaced file has another.
type fileID struct{ dev, ino uint64 }

// sameFile is os.SameFile for infos from os.Stat or from readDir.
func sameFile(a, b os.FileInfo) bool {
	if ia, ok := fileIDOf(a); ok {
		ib, ok := fileIDOf(b)
		return ok && ia == ib
	}
	return os.SameFile(a, b)
}
