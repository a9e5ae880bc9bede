package runway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/internal/synth"
	"github.com/agentrunway/runway/tail"
)

// The cold path of `runway now` over a large generated history: its answer
// equals a full recomputation, and what it reads is bounded by the window,
// not the history.

// historyEnv is an offline Env over a generated history and its Claude
// account samples, with nothing of the user's reachable; lookback 0 keeps
// the default.
func historyEnv(t testing.TB, st synth.HistoryStats, lookback time.Duration) runway.Env {
	cfg := runway.DefaultConfig()
	cfg.Offline = true
	if lookback > 0 {
		cfg.Lookback = runway.Duration(lookback)
	}
	home := t.TempDir()
	// A copy of the history's state folder: each Env has its own.
	state := filepath.Join(home, "state")
	if err := os.CopyFS(state, os.DirFS(st.State)); err != nil {
		t.Fatal(err)
	}
	return runway.Env{
		Config:         cfg,
		Roots:          tail.Roots{Claude: []string{st.Claude}, Codex: []string{st.Codex}},
		StateDir:       state,
		Home:           home,
		ClaudeCacheDir: filepath.Join(home, "claude-cache"),
	}
}

// everything is a lookback that reaches before any generated line.
const everything = 20 * 365 * 24 * time.Hour

func evaluateAt(env runway.Env, at time.Time) runway.Evaluation {
	return env.Evaluate(context.Background(), runway.EvalOptions{Now: func() time.Time { return at }})
}

// insideWindow returns, for each file of the history with lines stamped at
// or after from, the bytes from the first of them, and the history's whole
// size. A file's lines are never stamped after its modification time, so
// only files modified since from are scanned.
func insideWindow(t testing.TB, st synth.HistoryStats, from time.Time) (tails map[string]int64, total int64) {
	tails = map[string]int64{}
	for _, root := range []string{st.Claude, st.Codex} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
			if info.ModTime().Before(from) {
				return nil
			}
			n, err := bytesSince(path, from)
			if n > 0 {
				tails[path] = n
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return tails, total
}

// sum is the bytes of all tails.
func sum(tails map[string]int64) (n int64) {
	for _, b := range tails {
		n += b
	}
	return n
}

// bytesSince is the size of a file from its first line stamped at or
// after from.
func bytesSince(path string, from time.Time) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for {
		line, err := r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			// A line longer than the buffer: its stamp is a top-level key
			// that may come after the content, so keep it whole.
			more, e := r.ReadSlice('\n')
			line, err = append(append([]byte(nil), line...), more...), e
		}
		if len(line) == 0 {
			return 0, nil
		}
		if at, perr := time.Parse(time.RFC3339Nano, gjson.GetBytes(line, "timestamp").Str); perr == nil && !at.Before(from) {
			return info.Size() - off, nil
		}
		off += int64(len(line))
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// comparable is the snapshot's JSON, indented for a readable diff.
func comparable(t testing.TB, ev runway.Evaluation) string {
	b, err := json.MarshalIndent(ev.Snapshot, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEvaluateWindowedEqualsFull: on a generated history of tens of MB
// with a big active session, the window-bounded cold path gives the same
// snapshot as a recomputation that reads every file whole, and reads a
// small multiple of the bytes inside the window.
func TestEvaluateWindowedEqualsFull(t *testing.T) {
	end := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	st, err := synth.History(t.TempDir(), synth.HistoryOptions{
		End: end, Size: 48 << 20, ActiveSize: 16 << 20, RecentBytes: 2 << 20, Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	env := historyEnv(t, st, 0)
	windowed := evaluateAt(env, end)
	full := evaluateAt(historyEnv(t, st, everything), end)

	w, f := comparable(t, windowed), comparable(t, full)
	if w != f {
		t.Errorf("windowed snapshot differs from the full recomputation\nwindowed:\n%s\nfull:\n%s", w, f)
	}
	// Again, with the index the first run left: the same answer, from no
	// read of the logs (nothing changed), unless the files were written
	// too soon before the first run to trust their ctime: then they are
	// checksummed, never parsed again (tail.TestIndexSettledFileNotRead
	// holds the clock).
	indexed := evaluateAt(env, end)
	if i := comparable(t, indexed); i != f {
		t.Errorf("with the index, the snapshot differs from the full recomputation\nindexed:\n%s\nfull:\n%s", i, f)
	}
	if st := indexed.Tail; st.BytesRead != 0 && st.BytesChecked == 0 {
		t.Errorf("with the index and no file changed, the run read %d bytes, none of them a check", st.BytesRead)
	}
	if s := windowed.Snapshot; len(s.Sessions) < 4 || len(s.Providers) != 2 || s.Providers[0].Window == nil || s.Providers[1].Window == nil {
		t.Errorf("expected both providers' windows and the active sessions:\n%s", w)
	}

	lookback := time.Duration(runway.DefaultConfig().Lookback)
	tails, total := insideWindow(t, st, end.Add(-lookback))
	inside, files := sum(tails), len(tails)
	read, fullRead := windowed.Tail.BytesRead, full.Tail.BytesRead
	opened := 0
	for _, r := range windowed.Tail.Roots {
		opened += r.InWindow
	}
	t.Logf("history %d bytes; inside the %v window %d bytes in %d files; windowed read %d bytes (%.2fx inside) from %d files; full read %d bytes",
		total, lookback, inside, files, read, float64(read)/float64(inside), opened, fullRead)
	if fullRead < total {
		t.Errorf("the full recomputation read %d bytes of %d: it is not a full read", fullRead, total)
	}
	if opened != files {
		t.Errorf("opened %d files, %d have lines inside the window", opened, files)
	}
	// Besides the window, a cold read pays a boundary search per file
	// (one 512 KiB step plus probes), at most a few MB here.
	if limit := 2*inside + int64(opened)<<20; read > limit {
		t.Errorf("windowed read %d bytes, want at most %d (2x the %d inside + 1 MiB a file)", read, limit, inside)
	}
	if read > total/8 {
		t.Errorf("windowed read %d bytes of a %d-byte history", read, total)
	}
}

// benchHistory is the history the benchmarks read: $RUNWAY_BENCH_HISTORY
// when set (a folder genhistory wrote; it must be fresh, as its end is
// read as now), else one generated here: 1 GB with a 212 MB active
// session, or 48 MB with a 16 MB one under -short.
func benchHistory(b *testing.B) synth.HistoryStats {
	if dir := os.Getenv("RUNWAY_BENCH_HISTORY"); dir != "" {
		st, err := synth.ReadManifest(dir)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	o := synth.HistoryOptions{End: time.Now(), Size: 1 << 30, ActiveSize: 212 << 20, Seed: 1}
	if testing.Short() {
		o.Size, o.ActiveSize, o.RecentBytes = 48<<20, 16<<20, 2<<20
	}
	st, err := synth.History(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// fullRead reads every session file whole and counts its lines: the least
// any tool that re-reads the history pays.
func fullRead(b *testing.B, st synth.HistoryStats) int64 {
	var n int64
	buf := make([]byte, 1<<20)
	for _, root := range []string{st.Claude, st.Codex} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for {
				k, err := f.Read(buf)
				n += int64(bytes.Count(buf[:k], []byte("\n")))
				if err != nil {
					break
				}
			}
			return nil
		})
	}
	return n
}

// windowRead reads exactly the bytes inside the window with plain io,
// knowing where they start: the floor of any window-bounded reader.
func windowRead(b *testing.B, tails map[string]int64) int64 {
	var n int64
	buf := make([]byte, 1<<20)
	for path, size := range tails {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		info, _ := f.Stat()
		r := io.NewSectionReader(f, info.Size()-size, size)
		for {
			k, err := r.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte("\n")))
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return n
}

// BenchmarkEvaluate is `runway now`'s cold path on a large history, cold
// and indexed, each over baselines of the same run (x-…: below 1 beats it);
// -bench 'BenchmarkEvaluate/(evaluate.*|baseline-.*)$' skips full-evaluate.
func BenchmarkEvaluate(b *testing.B) {
	st := benchHistory(b)
	at := st.End
	env := historyEnv(b, st, 0)
	fullEnv := historyEnv(b, st, everything)
	from := at.Add(-time.Duration(env.Config.Lookback))
	tails, total := insideWindow(b, st, from)
	inside := sum(tails)
	perOp := func(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) }
	var window, whole, fullEval float64
	b.Run("baseline-window-read", func(b *testing.B) {
		b.SetBytes(inside)
		for b.Loop() {
			windowRead(b, tails)
		}
		window = perOp(b)
	})
	b.Run("baseline-full-read", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			fullRead(b, st)
		}
		whole = perOp(b)
	})
	b.Run("full-evaluate", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			evaluateAt(fullEnv, at)
		}
		fullEval = perOp(b)
	})
	var coldEval float64
	report := func(b *testing.B, read int64) {
		per := perOp(b)
		b.ReportMetric(float64(read), "bytes-read")
		b.ReportMetric(float64(inside), "bytes-inside")
		b.ReportMetric(float64(total), "bytes-history")
		b.ReportMetric(float64(read)/float64(inside), "read/inside")
		for _, base := range []struct {
			ns   float64
			unit string
		}{{window, "x-window-read"}, {whole, "x-full-read"}, {fullEval, "x-full-evaluate"}, {coldEval, "x-evaluate"}} {
			if base.ns > 0 {
				b.ReportMetric(per/base.ns, base.unit)
			}
		}
	}
	// A first run: no index in the state folder.
	cold := env
	cold.NoIndex = true
	b.Run("evaluate", func(b *testing.B) {
		var read int64
		for b.Loop() {
			read = evaluateAt(cold, at).Tail.BytesRead
		}
		report(b, read)
		coldEval = perOp(b)
	})
	// Second and later runs: the index the run before left.
	b.Run("evaluate-indexed", func(b *testing.B) {
		evaluateAt(env, at)
		var read int64
		for b.Loop() {
			read = evaluateAt(env, at).Tail.BytesRead
		}
		report(b, read)
	})
	// A later run while the big session writes: a line appended to it
	// before each run, so its indexed part is checksummed (a rewrite in
	// place could have changed it) and the line parsed. Last: it changes
	// the history.
	b.Run("evaluate-indexed-appended", func(b *testing.B) {
		line := lastLine(b, st.Active)
		evaluateAt(env, at)
		var read, checked int64
		for b.Loop() {
			b.StopTimer()
			appendTo(b, st.Active, line)
			b.StartTimer()
			ev := evaluateAt(env, at)
			read, checked = ev.Tail.BytesRead, ev.Tail.BytesChecked
		}
		report(b, read)
		b.ReportMetric(float64(checked), "bytes-checked")
	})
}

// lastLine is the file's last complete line, with its newline.
func lastLine(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	return append(data[bytes.LastIndexByte(data, '\n')+1:], '\n')
}

func appendTo(b *testing.B, path string, line []byte) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(line); err != nil {
		b.Fatal(err)
	}
}
