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

// The index is what a Tailer learned from each file (offsets, identities,
// the formats' carry-over), kept between processes so a one-shot run parses
// nothing twice. It is a cache: a restored file is used only where a cold
// read would give the same state (trustLocked), and anything unexpected in
// the bytes refuses the whole index.

// indexVersion changes whenever the layout or the meaning of what is stored
// changes; an index of any other version is rebuilt.
const (
	indexMagic   = "runway tail index\n"
	indexVersion = 7 // 7: a read stopped inside a long line keeps where it starts
)

// MaxIndexBytes bounds the index a caller reads: the lookback of a busy
// machine is a few MB.
const MaxIndexBytes = 64 << 20

// firstRead is how a file's first read began: a later run trusts the
// file's state only when a cold read would begin the same way.
type firstRead struct {
	from    time.Time // the window start
	start   int64     // the offset read from
	prevAt  time.Time // the stamp of the line before start
	carried string    // what the format learned before start, header included (format.carried)
}

// readCheck tells a restored file's bytes are still those its state came
// from (a log rewritten in place may end as it did): a file whose ctime is
// still that of its read is not read; any other has its read part checksummed.
type readCheck struct {
	sum       uint32 // CRC-32 (IEEE) of [cold.start, offset): what the state came from
	ctimeMark        // at the read
}

// ctimeMark is a file's status-change time (ctime) at a stat, and whether
// it was settleTime or more before that stat.
type ctimeMark struct {
	change  time.Time
	settled bool
}

// settleTime: a write within a timestamp tick of the last may leave the
// ctime unchanged; a ctime that old when stat'd moves on any later write.
const settleTime = 2 * time.Second

// stated takes the stat the read followed; wall is the clock before it.
func (c *ctimeMark) stated(info os.FileInfo, wall time.Time) {
	c.change, c.settled = time.Time{}, false
	if at, ok := changeTimeOf(info); ok {
		c.change, c.settled = at, wall.Sub(at) >= settleTime
	}
}

// unchanged: nothing was written to the file since that stat.
func (c *ctimeMark) unchanged(info os.FileInfo) bool {
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
	c := codec{strs: map[string]uint64{}}
	c.time(&t.pruned)
	paths := make([]string, 0, len(t.files))
	for p, f := range t.files {
		if f.keepable() {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	c.count(len(paths), 1)
	for _, p := range paths {
		c.file(t.files[p])
	}
	h := codec{b: []byte(indexMagic)}
	version, fp := uint64(indexVersion), t.indexFingerprint()
	h.uvarint(&version)
	h.raw(&fp)
	h.count(len(c.table), 1)
	for _, s := range c.table {
		h.raw(&s)
	}
	return appendSum(append(h.b, c.b...))
}

// appendSum ends an index with the checksum of what comes before.
func appendSum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// keepable: a file is kept once read, unless a read failed (the failure
// may be gone next time, and a cold read would not repeat its warning).
func (f *file) keepable() bool {
	if !f.opened || f.problem != nil || f.readFailed || !f.damagedAt.IsZero() {
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
	d := codec{reading: true, b: body[len(indexMagic):]}
	var version uint64
	if d.uvarint(&version); d.err == nil && version != indexVersion {
		return nil, time.Time{}, fmt.Errorf("version %d, this runway reads %d", version, indexVersion)
	}
	var fp string
	if d.raw(&fp); d.err == nil && fp != t.indexFingerprint() {
		return nil, time.Time{}, errors.New("made with other roots or settings")
	}
	d.table = list(&d, d.table, 1, d.raw)
	var pruned time.Time
	d.time(&pruned)
	files := map[string]*file{}
	for range d.count(0, 1) {
		f := &file{}
		if d.file(f); d.err != nil {
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
// would now give: the same file, not shorter, touched inside the window,
// nothing pruned (a dropped copy could have decided a later one), a cold
// read beginning as its first did, and its bytes as they were (readCheck).
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
	if f.dropped || !t.sameBytesLocked(f, c, from, !unchanged) {
		return false
	}
	f.info = c.info
	if !f.cold.from.Equal(from) {
		f.cold.from = from
		t.gen++
	}
	return true
}

// sameBytesLocked reports whether a cold read from `from` begins as f's
// first read did, header included (it is not checksummed), and, with sum,
// whether f's read part still has the checksum its state came from.
func (t *Tailer) sameBytesLocked(f *file, c candidate, from time.Time, sum bool) bool {
	fh, err := openRegular(f.path)
	if err != nil {
		return false
	}
	defer fh.Close()
	probe := newFile(f.path, c)
	r := &countingReader{r: fh}
	defer func() { t.bytesRead += r.n }()
	sc := &scratch{}
	if _, _, _, err := probe.begin(r, sc, t.opts, from); err != nil || probe.cold.start != f.cold.start ||
		!probe.cold.prevAt.Equal(f.cold.prevAt) || probe.cold.carried != f.cold.carried {
		return false
	}
	if sum {
		read := r.n
		got, err := sumOf(r, sc, f.cold.start, f.offset)
		t.bytesChecked += r.n - read
		if err != nil || got != f.check.sum {
			return false // rewritten in place: read as new
		}
		f.check.stated(c.info, t.statWall)
	}
	return true
}

// codec writes the index or reads it back: one walk over each type's
// fields serves both, so the two cannot drift. Strings are numbers into one
// table (a session's id, project and model repeat on every event). Reading,
// the first error sticks and every read after it gives zero values.
type codec struct {
	reading bool
	b       []byte
	strs    map[string]uint64 // writing: each string's number in table
	table   []string
	err     error
}

func (c *codec) fail(why string) {
	if c.err == nil {
		c.err = errors.New("damaged (" + why + ")")
	}
	c.b = nil
}

func (c *codec) uvarint(v *uint64) { varint(c, v, binary.AppendUvarint, binary.Uvarint) }
func (c *codec) varint(v *int64)   { varint(c, v, binary.AppendVarint, binary.Varint) }

// varint codes a number of either sign by put and get.
func varint[T uint64 | int64](c *codec, v *T, put func([]byte, T) []byte, get func([]byte) (T, int)) {
	if !c.reading {
		c.b = put(c.b, *v)
		return
	}
	x, n := get(c.b)
	if n <= 0 {
		c.fail("a number")
		return
	}
	*v, c.b = x, c.b[n:]
}

// count writes n, or reads a count of items that each take at least size
// bytes: a count the rest cannot hold is damage, so what it sizes stays
// bounded by the index's length.
func (c *codec) count(n, size int) int {
	x := uint64(n)
	c.uvarint(&x)
	if c.reading && x > uint64(len(c.b)/size) {
		c.fail("a count")
		return 0
	}
	return int(x)
}

func (c *codec) flag(v *bool) {
	if !c.reading {
		b := byte(0)
		if *v {
			b = 1
		}
		c.b = append(c.b, b)
		return
	}
	if len(c.b) < 1 || c.b[0] > 1 {
		c.fail("a flag")
		return
	}
	*v, c.b = c.b[0] == 1, c.b[1:]
}

func (c *codec) float(v *float64) {
	if !c.reading {
		c.b = binary.LittleEndian.AppendUint64(c.b, math.Float64bits(*v))
		return
	}
	if len(c.b) < 8 {
		c.fail("a number")
		return
	}
	*v, c.b = math.Float64frombits(binary.LittleEndian.Uint64(c.b)), c.b[8:]
}

// raw is a string written whole, outside the table.
func (c *codec) raw(v *string) {
	n := c.count(len(*v), 1)
	if !c.reading {
		c.b = append(c.b, *v...)
	} else if c.err == nil {
		*v, c.b = string(c.b[:n]), c.b[n:]
	}
}

// bytes is raw for a byte slice; empty reads as nil.
func (c *codec) bytes(v *[]byte) {
	s := string(*v)
	c.raw(&s)
	if c.reading && s != "" {
		*v = []byte(s)
	}
}

func (c *codec) str(v *string) {
	if c.reading {
		var i uint64
		c.uvarint(&i)
		if i >= uint64(len(c.table)) {
			c.fail("a string")
			return
		}
		*v = c.table[i]
		return
	}
	i, ok := c.strs[*v]
	if !ok {
		i = uint64(len(c.table))
		c.strs[*v] = i
		c.table = append(c.table, *v)
	}
	c.uvarint(&i)
}

// time keeps the instant exactly (every stamp tail makes is UTC).
func (c *codec) time(v *time.Time) {
	sec, nsec := v.Unix(), uint64(v.Nanosecond())
	c.varint(&sec)
	c.uvarint(&nsec)
	if !c.reading {
		return
	}
	if nsec >= 1e9 {
		c.fail("a time")
		return
	}
	*v = time.Unix(sec, int64(nsec)).UTC()
}

// list codes a slice of items of at least size bytes each.
func list[T any](c *codec, s []T, size int, code func(*T)) []T {
	n := c.count(len(s), size)
	if c.reading && n > 0 {
		s = make([]T, n)
	}
	for i := range n {
		code(&s[i])
	}
	return s
}

// eventSize is the fewest bytes event reads: six strings' table numbers,
// two times (seconds and nanoseconds), four token counts, the weight and
// two flags.
const eventSize = 6 + 2*2 + 4 + 8 + 2

func (c *codec) event(ev *burn.Event) {
	for _, s := range []*string{(*string)(&ev.Provider), &ev.Session, &ev.Agent, &ev.Project, &ev.Model} {
		c.str(s)
	}
	c.time(&ev.At)
	c.time(&ev.TurnStart)
	c.str(&ev.Key)
	for _, n := range []*int64{&ev.Tokens.Input, &ev.Tokens.Output, &ev.Tokens.CacheCreation, &ev.Tokens.CacheRead} {
		c.varint(n)
	}
	c.float(&ev.Weighted)
	c.flag(&ev.Final)
	c.flag(&ev.EndsTurn)
}

func (c *codec) sample(s *burn.Sample) {
	c.time(&s.ObservedAt)
	c.str((*string)(&s.Provider))
	c.str((*string)(&s.Window))
	minutes := int64(s.WindowMinutes)
	c.varint(&minutes)
	s.WindowMinutes = int(minutes)
	c.float(&s.UsedPercent)
	c.time(&s.ResetsAt)
	c.str((*string)(&s.Source))
}

func (c *codec) file(f *file) {
	c.raw(&f.path)
	c.str((*string)(&f.provider))
	if c.reading {
		kind, ok := formats[f.provider]
		if !ok {
			c.fail("a provider")
			return
		}
		f.log, f.opened, f.restored, f.idOK = kind.open(f.path), true, true, true
	}
	root := uint64(f.root)
	c.uvarint(&root)
	f.root = int(root)
	c.uvarint(&f.id.dev)
	c.uvarint(&f.id.ino)
	c.varint(&f.offset)
	c.flag(&f.skipping)
	c.varint(&f.skipFrom)
	c.time(&f.lastAt)
	c.bytes(&f.mark)
	c.bytes(&f.head)
	c.varint(&f.headAt)
	c.time(&f.readMod)
	c.time(&f.cold.from)
	c.varint(&f.cold.start)
	c.time(&f.cold.prevAt)
	c.str(&f.cold.carried)
	sum := uint64(f.check.sum)
	if c.uvarint(&sum); sum > math.MaxUint32 {
		c.fail("a checksum")
	}
	f.check.sum = uint32(sum)
	c.time(&f.check.change)
	c.flag(&f.check.settled)
	c.flag(&f.dropped)
	if c.reading && (f.offset < 0 || f.cold.start < 0 || f.cold.start > f.offset || f.skipFrom < -1 || f.skipFrom > f.offset ||
		len(f.mark) > markLen || int64(len(f.mark)) > f.offset ||
		len(f.head) > markHead || f.headAt < 0 || f.headAt+int64(len(f.head)) > f.offset) {
		c.fail("an offset")
	}
	c.str((*string)(&f.activity.Provider))
	c.str(&f.activity.Session)
	c.time(&f.activity.At)
	c.flag(&f.activity.TurnEnded)
	f.warnings = list(c, f.warnings, 1, c.str)
	f.samples = list(c, f.samples, 1, c.sample)
	f.log.code(c)
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
