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

// tailBytes is how much of the log's end Record and Newest read: enough for
// the newest sample of every provider, window and source many times over,
// small enough to run after every Claude message in many terminals.
const tailBytes = 8 << 10

// heartbeat is how long an unchanged sample is left out of the log before
// it is written again, so a quiet window still has a recent observation.
const heartbeat = 60 * time.Second

// maxLine bounds a line the reader accepts; a sample line is ~200 bytes.
const maxLine = 64 << 10

// Log is runway's append-only account sample log, shared by every runway
// process (the tray, `runway now`, the statusline in many terminals). Each
// line is one burn.Sample in its JSON form.
type Log struct {
	path string
}

// OpenLog opens (creating) the sample log in dir under the state folder's
// rules (internal/statedir): the folder the user's own and 0700, the file
// 0600, never through a symbolic link.
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

// LogIn is the sample log in dir for reading: it opens nothing, so a
// read-only state folder (a read-only mount, a sandbox, a 0400 log) is
// still read. Writing through it fails as it would through OpenLog's.
func LogIn(dir string) *Log { return &Log{path: filepath.Join(dir, LogName)} }

// openRegular opens a file of the agents' (not runway's state) without
// blocking on a FIFO and refuses anything but a regular file: a FIFO in
// its place would hang every runway process, a device would never end.
func openRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|statedir.NonBlock, 0o600)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			err = statedir.NotRegular(path, fi)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = statedir.NotRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRegular reads at most limit bytes of a regular file, never blocking on
// a FIFO put in its place nor reading a device forever.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return statedir.ReadAll(f, limit)
}

// Path is the log's file.
func (l *Log) Path() string { return l.path }

// Append adds samples in a single write to the file opened with O_APPEND,
// so lines from processes appending at once never interleave.
func (l *Log) Append(samples ...burn.Sample) error {
	if len(samples) == 0 {
		return nil
	}
	b, err := encodeSamples(samples)
	if err != nil {
		return err
	}
	for range 2 {
		replaced, err := l.write(b)
		if err != nil || !replaced {
			return err
		}
		// Compact renamed a new file into place while we wrote into the
		// old one: write again so the line is not lost with it. A copy
		// Compact already carried over is a harmless duplicate.
	}
	return nil
}

// encodeSamples is samples as log lines.
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

// Read returns the samples observed at or after since, in file order, and a
// warning for lines it had to skip (a torn write after a crash, garbage) or
// for a log it could not open.
func (l *Log) Read(since time.Time) ([]burn.Sample, []string) {
	samples, warnings, err := l.ReadAll(since)
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	return samples, warnings
}

// ReadAll is Read with the log that could not be read as an error: a
// missing log is no error (nothing recorded yet), an unreadable one is.
// It opens the file read-only.
func (l *Log) ReadAll(since time.Time) ([]burn.Sample, []string, error) {
	f, err := statedir.Open(l.path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("quota: read sample log: %w", err)
	}
	defer f.Close()
	hint := 0
	if fi, err := f.Stat(); err == nil {
		hint = int(min(fi.Size()/160, 1<<16)) // ~160 bytes a line
	}
	samples, warnings := readSamples(f, since, hint)
	return samples, warnings, nil
}

// readSamples parses a sample log stream. A line that is not a sample is
// skipped; when a torn line ran into the next append, the sample at its end
// is still recovered.
func readSamples(r io.Reader, since time.Time, hint int) ([]burn.Sample, []string) {
	var (
		out     = make([]burn.Sample, 0, hint)
		skipped int
		first   int
		n       int
	)
	br := bufio.NewReaderSize(r, 32<<10)
	for {
		line, err := readLine(br)
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

// readLine returns the next line without its newline; an over-long line is
// returned truncated (and then fails to parse) rather than held in memory.
func readLine(br *bufio.Reader) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		// The whole line is in the reader's buffer: no copy.
		return bytes.TrimRight(chunk, "\r\n"), err
	}
	line := append([]byte(nil), chunk...)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// lineStart is how every line Append writes begins (ObservedAt is the
// first field of burn.Sample); it lets the reader find a whole sample after
// a torn one.
var lineStart = []byte(`{"observed_at":`)

// parseLine decodes one log line into a valid sample.
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

// decodeSample reads the JSON form of burn.Sample as encoding/json would,
// as strictly (a field of the wrong type fails the line), several times
// faster: `runway now` reads days of samples.
func decodeSample(b []byte) (burn.Sample, bool) {
	// encoding/json writes only valid UTF-8 and would read a stray byte
	// as U+FFFD: a line that is not UTF-8 was not written by runway.
	if len(b) == 0 || b[0] != '{' || !utf8.Valid(b) || !jsonsafe.Valid(b) {
		return burn.Sample{}, false
	}
	var s burn.Sample
	ok := true
	gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		if !sampleFields[key] {
			// encoding/json would match a field's name in another case:
			// runway never writes one, so the line is not ours.
			for f := range sampleFields {
				if strings.EqualFold(key, f) {
					ok = false
				}
			}
			return ok
		}
		switch key {
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
		}
		return ok
	})
	return s, ok && validSample(s)
}

// sampleFields are the JSON names of burn.Sample's fields.
var sampleFields = map[string]bool{"observed_at": true, "provider": true, "window": true,
	"window_minutes": true, "used_percent": true, "resets_at": true, "source": true, "account": true}

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

// validSample rejects what no source writes, so a hand-edited or corrupt
// line cannot reach burn as a number.
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

// validAccount: empty, or a fingerprint as AccountFingerprint writes it
// (hex): never anything a person could read as an id or a token.
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

// seriesKey identifies the stream of samples a source gives for a window.
type seriesKey struct {
	Provider burn.Provider
	Window   burn.WindowClass
	Source   burn.Source
	// Account: two logins' statuslines are two series; as one, a reading
	// of one login timed as the other's newest was taken for a repeat.
	Account string
}

func keyOf(s burn.Sample) seriesKey { return seriesKey{s.Provider, s.Window, s.Source, s.Account} }

// newest returns, from the log's tail only, the newest sample of each
// provider, window and source observed at or before now: one stamped later
// (a clock that was ahead, then stepped back) is no base to compare with.
func (l *Log) newest(now time.Time) (map[seriesKey]burn.Sample, error) {
	f, err := statedir.Open(l.path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("quota: read sample log: %w", err)
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
	newest := make(map[seriesKey]burn.Sample)
	for _, s := range samples {
		if s.ObservedAt.After(now) {
			continue
		}
		k := keyOf(s)
		if old, ok := newest[k]; !ok || !s.ObservedAt.Before(old.ObservedAt) {
			newest[k] = s
		}
	}
	return newest, nil
}

// Record appends the samples that say something the log's newest sample of
// the same provider, window and source does not: another percent, another
// window instance, or the same values after the heartbeat interval. It reads
// only the log's tail, and returns how many samples it appended.
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
		// A sample stamped after this one is no repeat of it: the reading
		// is recorded, or every later reader would drop the future line
		// and see nothing.
		if age := s.ObservedAt.Sub(old.ObservedAt); ok && sameReading(old, s) && age >= 0 && age < heartbeat {
			continue
		}
		// A reading timed before the series' newest came late (Claude
		// Code repeats a session's last one): nothing new.
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

// sameReading: the same percent of the same window instance. Endpoints give
// resets_at with jitter (microseconds that move between calls), so the
// reset may differ by up to a minute.
func sameReading(a, b burn.Sample) bool {
	if math.Abs(a.UsedPercent-b.UsedPercent) > 1e-9 || a.Account != b.Account {
		return false
	}
	d := a.ResetsAt.Sub(b.ResetsAt)
	return a.ResetsAt.IsZero() == b.ResetsAt.IsZero() && d < time.Minute && d > -time.Minute
}

// Compact rewrites the log without samples observed before now−keep, keeping
// the newest sample of every series whatever its age (so the current
// windows keep a value), and drops unreadable lines and exact repeats.
func (l *Log) Compact(now time.Time, keep time.Duration) error {
	old, err := statedir.Open(l.path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("quota: compact sample log: %w", err)
	}
	defer old.Close()
	samples, _ := readSamples(old, time.Time{}, 0)
	end, err := old.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("quota: compact sample log: %w", err)
	}

	buf := bytes.NewBuffer(compacted(samples, now.Add(-keep)))

	// Lines appended while we worked: carry them over before and after the
	// rename. An appender that writes after the last copy notices the
	// rename and writes again (see Append); a line copied twice is a
	// harmless repeat.
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
	_, err = l.write(late)
	return err
}

// compacted is the log's lines without repeats and without samples older
// than cutoff, but the newest of each series: a window that went quiet
// still shows its last figure.
func compacted(samples []burn.Sample, cutoff time.Time) []byte {
	newest := make(map[seriesKey]int)
	for i, s := range samples {
		k := keyOf(s)
		if j, ok := newest[k]; !ok || !s.ObservedAt.Before(samples[j].ObservedAt) {
			newest[k] = i
		}
	}
	keepIdx := make(map[int]bool, len(newest))
	for _, i := range newest {
		keepIdx[i] = true
	}
	seen := make(map[burn.Sample]bool)
	var buf bytes.Buffer
	for i, s := range samples {
		if (s.ObservedAt.Before(cutoff) && !keepIdx[i]) || seen[s] {
			continue
		}
		seen[s] = true
		line, _ := json.Marshal(s)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// readFrom returns the whole lines of f from off on, and the offset after
// them.
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
