package quota

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/jsonsafe"
	"github.com/agentrunway/runway/internal/statedir"
)

// LogName is the sample log's file name inside the state folder.
const LogName = "samples.jsonl"

const (
	// tailBytes of the log's end hold every series' newest sample many
	// times over, and are cheap after every Claude message.
	tailBytes = 8 << 10
	// heartbeat: an unchanged sample is written again after it, so a quiet
	// window still has a recent observation.
	heartbeat = 60 * time.Second
	maxLine   = 64 << 10 // a sample line is ~200 bytes
)

// Log is runway's append-only sample log, one burn.Sample as JSON a line,
// shared by every runway process.
type Log struct {
	path string
	// beforeWrite, set by tests only, runs between opening the file and
	// writing to it: where a compaction can replace the file.
	beforeWrite func()
}

// OpenLog opens (creating) the sample log in dir under internal/statedir's rules.
func OpenLog(dir string) (*Log, error) {
	if _, err := statedir.Ensure(dir); err != nil {
		return nil, fmt.Errorf("quota: state folder: %w", err)
	}
	l := &Log{path: filepath.Join(dir, LogName)}
	f, err := statedir.Open(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("quota: open sample log: %w", err)
	}
	return l, f.Close()
}

// LogIn is the sample log in dir, opening nothing: a read-only state folder
// is still read.
func LogIn(dir string) *Log { return &Log{path: filepath.Join(dir, LogName)} }

// readRegular reads at most limit bytes of an agent's file, refusing all but
// a regular file: a FIFO would hang every runway process, a device never end.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|statedir.NonBlock, 0)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			err = statedir.NotRegular(path, fi)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = statedir.NotRegular(path, fi)
	}
	if err != nil {
		return nil, err
	}
	return statedir.ReadAll(f, limit)
}

// open opens the log to read; nil without an error when it is not there
// (nothing recorded yet).
func (l *Log) open(doing string) (*os.File, error) {
	f, err := statedir.Open(l.path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("quota: %s sample log: %w", doing, err)
	}
	return f, nil
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

// Append adds samples in a single O_APPEND write, so concurrent appenders'
// lines never interleave.
func (l *Log) Append(samples ...burn.Sample) error {
	if len(samples) == 0 {
		return nil
	}
	b, err := encodeSamples(samples)
	if err != nil {
		return err
	}
	return l.appendLanded(b)
}

// appendLanded writes b until a write lands in the file in place: one that
// went to a file Compact replaced meanwhile may have come after Compact
// carried that file's last lines over (a copy it did carry is a harmless
// repeat). Compactions one after another can replace it again each time.
func (l *Log) appendLanded(b []byte) error {
	for range maxReplaced {
		replaced, err := l.write(b)
		if err != nil || !replaced {
			return err
		}
	}
	return fmt.Errorf("quota: append to sample log: the file was replaced under each of %d writes", maxReplaced)
}

// maxReplaced bounds appendLanded; a compaction takes milliseconds and runs
// at most every few minutes per runway process.
const maxReplaced = 16

func encodeSamples(samples []burn.Sample) ([]byte, error) {
	var buf bytes.Buffer
	for _, s := range samples {
		line, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("quota: encode sample: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// write appends b and reports whether the file was replaced meanwhile.
func (l *Log) write(b []byte) (replaced bool, err error) {
	f, err := statedir.Open(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return false, fmt.Errorf("quota: open sample log: %w", err)
	}
	defer f.Close()
	if l.beforeWrite != nil {
		l.beforeWrite()
	}
	if _, err := f.Write(b); err != nil {
		return false, fmt.Errorf("quota: append to sample log: %w", err)
	}
	mine, err := f.Stat()
	if err != nil {
		return false, nil
	}
	now, err := os.Stat(l.path)
	if err != nil {
		return false, nil
	}
	return !os.SameFile(mine, now), nil
}

// ReadAll returns the samples observed at or after since, in file order, with
// warnings for skipped lines; an unreadable log is the error (a missing one is none).
func (l *Log) ReadAll(since time.Time) ([]burn.Sample, []string, error) {
	f, err := l.open("read")
	if f == nil {
		return nil, nil, err
	}
	defer f.Close()
	hint := 0
	if fi, err := f.Stat(); err == nil {
		hint = int(min(fi.Size()/160, 1<<16)) // ~160 bytes a line
	}
	samples, warnings := readSamples(f, since, hint)
	return samples, warnings, nil
}

// readSamples parses a sample log, skipping what is not a sample; a torn line
// that ran into the next append still gives the sample at its end.
func readSamples(r io.Reader, since time.Time, hint int) ([]burn.Sample, []string) {
	var (
		out     = make([]burn.Sample, 0, hint)
		skipped int
		first   int
		n       int
	)
	br := bufio.NewReaderSize(r, 32<<10)
	for {
		line, err := readLine(br, maxLine)
		if len(line) > 0 {
			n++
			s, ok := parseLine(line)
			switch {
			case !ok:
				skipped++
				if first == 0 {
					first = n
				}
			case !s.ObservedAt.Before(since):
				out = append(out, s)
			}
		}
		if err != nil {
			break
		}
	}
	if skipped == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("quota: sample log: skipped %d unreadable line(s), first at line %d", skipped, first)}
}

// readLine returns the next line without its end; one over limit bytes comes
// back cut (and then fails to parse) rather than held in memory.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return bytes.TrimRight(chunk, "\r\n"), err // the reader's buffer: no copy
	}
	line := append([]byte(nil), chunk...)
	for err == bufio.ErrBufferFull {
		chunk, err = br.ReadSlice('\n')
		line = append(line, chunk[:min(len(chunk), max(0, limit-len(line)))]...)
	}
	return bytes.TrimRight(line, "\r\n"), err
}

// lineStart begins every line Append writes (ObservedAt is burn.Sample's
// first field): a whole sample after a torn one starts there.
var lineStart = []byte(`{"observed_at":`)

func parseLine(line []byte) (burn.Sample, bool) {
	line = bytes.TrimSpace(line)
	if s, ok := decodeSample(line); ok {
		return s, true
	}
	if i := bytes.LastIndex(line, lineStart); i > 0 {
		return decodeSample(line[i:])
	}
	return burn.Sample{}, false
}

// decodeSample reads burn.Sample's JSON as strictly as encoding/json would,
// several times faster: `runway now` reads days of samples.
func decodeSample(b []byte) (burn.Sample, bool) {
	// encoding/json writes only UTF-8: another line was not runway's.
	if len(b) == 0 || b[0] != '{' || !utf8.Valid(b) || !jsonsafe.Valid(b) {
		return burn.Sample{}, false
	}
	var s burn.Sample
	ok := true
	gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "observed_at":
			s.ObservedAt, ok = logTime(v)
		case "resets_at":
			s.ResetsAt, ok = logTime(v)
		case "provider":
			s.Provider, ok = burn.Provider(v.Str), v.Type == gjson.String
		case "window":
			s.Window, ok = burn.WindowClass(v.Str), v.Type == gjson.String
		case "source":
			s.Source, ok = burn.Source(v.Str), v.Type == gjson.String
		case "account":
			s.Account, ok = v.Str, v.Type == gjson.String
		case "window_minutes":
			n, err := strconv.ParseInt(v.Raw, 10, 0)
			s.WindowMinutes, ok = int(n), err == nil && v.Type == gjson.Number
		case "used_percent":
			s.UsedPercent, ok = v.Float(), v.Type == gjson.Number
		default:
			// encoding/json would match another case; runway never writes one.
			for _, f := range sampleFields {
				ok = ok && !strings.EqualFold(k.Str, f)
			}
		}
		return ok
	})
	return s, ok && validSample(s)
}

var sampleFields = []string{"observed_at", "provider", "window", "window_minutes", "used_percent", "resets_at", "source", "account"}

// logTime reads a time as encoding/json writes it (RFC 3339), or null.
func logTime(v gjson.Result) (time.Time, bool) {
	switch v.Type {
	case gjson.Null:
		return time.Time{}, true
	case gjson.String:
		t, err := time.Parse(time.RFC3339Nano, v.Str)
		return t, err == nil
	}
	return time.Time{}, false
}

// validSample rejects what no source writes, so an edited or corrupt line
// never reaches burn as a number.
func validSample(s burn.Sample) bool {
	if s.ObservedAt.IsZero() || s.WindowMinutes <= 0 || s.Source == "" || !validAccount(s.Account) {
		return false
	}
	if s.Provider != burn.Claude && s.Provider != burn.Codex {
		return false
	}
	if s.Window != burn.FiveHour && s.Window != burn.Weekly {
		return false
	}
	if math.IsNaN(s.UsedPercent) || math.IsInf(s.UsedPercent, 0) || s.UsedPercent < 0 || s.UsedPercent > 100 {
		return false
	}
	return true
}

// validAccount: empty or a hex fingerprint, never a readable id or token.
func validAccount(a string) bool {
	if len(a) > 16 {
		return false
	}
	for i := 0; i < len(a); i++ {
		if !(a[i] >= '0' && a[i] <= '9' || a[i] >= 'a' && a[i] <= 'f') {
			return false
		}
	}
	return true
}

// seriesKey identifies one source's stream for a window of one login.
type seriesKey struct {
	Provider burn.Provider
	Window   burn.WindowClass
	Source   burn.Source
	Account  string
}

func keyOf(s burn.Sample) seriesKey { return seriesKey{s.Provider, s.Window, s.Source, s.Account} }

// newest is each series' newest sample in the log's tail, observed by now (a
// later stamp, from a clock stepped back, is no base to compare with).
func (l *Log) newest(now time.Time) (map[seriesKey]burn.Sample, error) {
	f, err := l.open("read")
	if f == nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("quota: read sample log: %w", err)
	}
	buf, _, err := statedir.ReadTail(f, fi.Size(), tailBytes)
	if err != nil {
		return nil, fmt.Errorf("quota: read sample log: %w", err)
	}
	samples, _ := readSamples(bytes.NewReader(buf), time.Time{}, 0)
	samples = slices.DeleteFunc(samples, func(s burn.Sample) bool { return s.ObservedAt.After(now) })
	newest := make(map[seriesKey]burn.Sample)
	for k, i := range newestOf(samples) {
		newest[k] = samples[i]
	}
	return newest, nil
}

// newestOf is the index of each series' newest sample (the later line of a tie).
func newestOf(samples []burn.Sample) map[seriesKey]int {
	newest := make(map[seriesKey]int)
	for i, s := range samples {
		k := keyOf(s)
		if j, ok := newest[k]; !ok || !s.ObservedAt.Before(samples[j].ObservedAt) {
			newest[k] = i
		}
	}
	return newest
}

// Record appends the samples that say something new against their series'
// newest (another percent or window instance, or the heartbeat passed), and
// returns how many.
func (l *Log) Record(now time.Time, samples []burn.Sample) (int, error) {
	newest, err := l.newest(now)
	if err != nil {
		return 0, err
	}
	var add []burn.Sample
	for _, s := range samples {
		if !validSample(s) {
			continue
		}
		old, ok := newest[keyOf(s)]
		// A repeat must not be stamped before the newest: a reader would
		// drop the future line and see nothing.
		if age := s.ObservedAt.Sub(old.ObservedAt); ok && sameReading(old, s) && age >= 0 && age < heartbeat {
			continue
		}
		// Timed before the newest: a late repeat of a session's last reading.
		if ok && !s.ObservedAt.After(old.ObservedAt) {
			continue
		}
		add = append(add, s)
		newest[keyOf(s)] = s
	}
	if err := l.Append(add...); err != nil {
		return 0, err
	}
	return len(add), nil
}

// sameReading: the same percent of the same window instance; resets_at
// jitters between calls, so within a minute.
func sameReading(a, b burn.Sample) bool {
	if math.Abs(a.UsedPercent-b.UsedPercent) > 1e-9 || a.Account != b.Account {
		return false
	}
	d := a.ResetsAt.Sub(b.ResetsAt)
	return a.ResetsAt.IsZero() == b.ResetsAt.IsZero() && d < time.Minute && d > -time.Minute
}

// Compact rewrites the log without unreadable lines, exact repeats and
// samples older than now−keep, but each series' newest.
func (l *Log) Compact(now time.Time, keep time.Duration) error {
	old, err := l.open("compact")
	if old == nil {
		return err
	}
	defer old.Close()
	samples, _ := readSamples(old, time.Time{}, 0)
	end, err := old.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("quota: compact sample log: %w", err)
	}

	buf := bytes.NewBuffer(compacted(samples, now.Add(-keep)))

	// Carry over lines appended meanwhile, before and after the rename; a
	// later appender notices the rename and writes again (Append).
	late, end, err := readFrom(old, end)
	if err != nil {
		return fmt.Errorf("quota: compact sample log: %w", err)
	}
	buf.Write(late)

	if runtime.GOOS == "windows" {
		// Windows cannot rename over a file that is open.
		old.Close()
	}
	if err := atomicfile.WriteDurable(l.path, buf.Bytes()); err != nil {
		return fmt.Errorf("quota: compact sample log: %w", err)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	late, _, err = readFrom(old, end)
	if err != nil || len(late) == 0 {
		return err
	}
	return l.appendLanded(late)
}

// compacted is samples as lines without repeats nor samples older than
// cutoff, but each series' newest: a quiet window keeps its last figure.
func compacted(samples []burn.Sample, cutoff time.Time) []byte {
	keepIdx := make(map[int]bool)
	for _, i := range newestOf(samples) {
		keepIdx[i] = true
	}
	seen := make(map[burn.Sample]bool)
	var kept []burn.Sample
	for i, s := range samples {
		if (s.ObservedAt.Before(cutoff) && !keepIdx[i]) || seen[s] {
			continue
		}
		seen[s] = true
		kept = append(kept, s)
	}
	b, _ := encodeSamples(kept) // they were decoded from JSON: they encode
	return b
}

// readFrom returns f's whole lines from off on, and the offset after them.
func readFrom(f *os.File, off int64) ([]byte, int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, off, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, off, err
	}
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return nil, off, nil
	}
	return b[:i+1], off + int64(i+1), nil
}
