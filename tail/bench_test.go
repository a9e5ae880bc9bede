package tail

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var newline = []byte("\n")

// baselineNs is the fastest of a few newline counts over data: the floor
// any line-oriented reader pays.
func baselineNs(data []byte) float64 {
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		bytes.Count(data, newline)
		best = min(best, time.Since(start))
	}
	return float64(best.Nanoseconds())
}

// BenchmarkParse reads a whole generated file (in the page cache) through a
// Tailer, beside a newline count over the same bytes; x-baseline is the
// Tailer's time over the count's.
func BenchmarkParse(b *testing.B) {
	end := at("2026-11-20T20:00:00Z")
	for _, codex := range []bool{false, true} {
		name := map[bool]string{false: "claude", true: "codex"}[codex]
		size := int64(64 << 20)
		if testing.Short() {
			size = 8 << 20
		}
		roots, path := writeTree(b, b.TempDir(), codex, size, end.Add(-10*time.Hour), end)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		base := baselineNs(data)
		b.Run(name+"/baseline-newlines", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				bytes.Count(data, newline)
			}
		})
		b.Run(name+"/tail", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			events := 0
			for b.Loop() {
				tl := New(Options{Roots: roots, CacheReadWeight: 0.1})
				tl.Scan(end)
				events = len(tl.Usage(time.Time{}).Events)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-baseline")
			b.ReportMetric(float64(events), "events")
		})
	}
}

// BenchmarkColdStart is `runway now` on a history with a 200 MB active
// Claude session (20 MB with -short) of which the last hour is inside the
// lookback, a 20 MB active Codex rollout, and hundreds of old files.
// x-full-read is its time over reading the big file whole and counting its
// lines.
func BenchmarkColdStart(b *testing.B) {
	end := at("2026-11-20T20:00:00Z")
	dir := b.TempDir()
	size := int64(200 << 20)
	if testing.Short() {
		size = 20 << 20 // a CI-sized run
	}
	roots, big := writeTree(b, dir, false, size, end.Add(-24*time.Hour), end)
	codexRoots, _ := writeTree(b, dir, true, size/10, end.Add(-24*time.Hour), end)
	roots.Codex = codexRoots.Codex
	old := end.Add(-72 * time.Hour)
	h := newHistory(3)
	for i := range 300 {
		var p string
		if i%2 == 0 {
			p = filepath.Join(roots.Claude[0], "projects", fmt.Sprintf("-home-dev-src-p%d", i%17), fmt.Sprintf("old-%d.jsonl", i))
		} else {
			p = filepath.Join(roots.Codex[0], "sessions", "2026", "11", fmt.Sprintf("%02d", 1+i%17), fmt.Sprintf("rollout-2026-11-01T00-00-00-old%d.jsonl", i))
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			h.claude(f, 100<<10, old.Add(-time.Hour), old)
		} else {
			h.codex(f, 100<<10, old.Add(-time.Hour), old)
		}
		f.Close()
		os.Chtimes(p, old, old)
	}
	from := end.Add(-time.Hour)
	inside := bytesSince(b, big, from)
	full := func() {
		data, err := os.ReadFile(big)
		if err != nil {
			b.Fatal(err)
		}
		bytes.Count(data, newline)
	}
	bestFull := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		full()
		bestFull = min(bestFull, time.Since(start))
	}
	var read int64
	events := 0
	for b.Loop() {
		tl := New(Options{Roots: roots, CacheReadWeight: 0.1, Lookback: time.Hour})
		tl.Scan(end)
		events = len(tl.Usage(from).Events)
		read = tl.Stats().BytesRead
	}
	b.ReportMetric(float64(read), "bytes-read")
	b.ReportMetric(float64(inside), "bytes-inside")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(bestFull.Nanoseconds()), "x-full-read")
}
