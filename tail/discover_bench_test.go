package tail

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// benchTree writes n small session files, Claude transcripts 100 to a
// project folder and Codex rollouts 100 to a day folder, all last written
// a month before now but a few, as a long-used machine has them.
// $RUNWAY_BENCH_TREE names a folder to keep the tree in between runs.
func benchTree(b *testing.B, n int, now time.Time) Roots {
	dir := os.Getenv("RUNWAY_BENCH_TREE")
	if dir == "" {
		dir = b.TempDir()
	}
	roots := Roots{Claude: []string{filepath.Join(dir, "claude")}, Codex: []string{filepath.Join(dir, "codex")}}
	mark := filepath.Join(dir, "files")
	if got, _ := os.ReadFile(mark); string(got) == strconv.Itoa(n) {
		return roots
	}
	old := now.Add(-30 * 24 * time.Hour)
	line := []byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"},"timestamp":"` + old.Format(time.RFC3339) + `"}` + "\n")
	for i := range n {
		var path string
		if i%2 == 0 {
			path = filepath.Join(dir, "claude", "projects", fmt.Sprintf("-home-dev-src-p%d", i/200), fmt.Sprintf("%08d-2222-4333-8444-a55566667777.jsonl", i))
		} else {
			day := i / 200
			path = filepath.Join(dir, "codex", "sessions", "2026", fmt.Sprintf("%02d", 1+day/28%12), fmt.Sprintf("%02d", 1+day%28),
				fmt.Sprintf("rollout-2026-01-01T09-00-00-01a22fc0-2222-7000-8000-%012d.jsonl", i))
		}
		if i%200 < 2 {
			os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err := os.WriteFile(path, line, 0o644); err != nil {
			b.Fatal(err)
		}
		at := old
		if i%20000 == 7 {
			at = now.Add(-time.Minute) // a few recent ones
		}
		os.Chtimes(path, at, at)
	}
	os.WriteFile(mark, []byte(strconv.Itoa(n)), 0o644)
	return roots
}

// BenchmarkDiscover is the walk of a big tree (200,000 session files, 20,000
// with -short) beside baselines from the same run: `find` over the same
// roots naming every .jsonl (baseline-find, when find is installed), find
// printing each one's modification time and size (baseline-find-stat) and a
// plain recursive os.ReadDir that stats nothing (baseline-readdir). scan
// is a first run (a fresh Tailer, default 6 h lookback); scan-indexed a
// later one, restored from the index the first saved. Each reports its
// time over the baselines (x-find, x-find-stat, x-readdir).
func BenchmarkDiscover(b *testing.B) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	roots := benchTree(b, n, now)
	opts := Options{Roots: roots, CacheReadWeight: 0.1, Lookback: 6 * time.Hour, WindowStep: time.Hour}
	perOp := func(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) }
	var find, findStat, readdir float64
	if path, err := exec.LookPath("find"); err == nil {
		// find-stat also stats each file, as a walk that must know what
		// changed does: the floor of any such walk.
		for name, c := range map[string]struct {
			per  *float64
			args []string
		}{"baseline-find": {&find, nil}, "baseline-find-stat": {&findStat, []string{"-printf", "%T@ %s\n"}}} {
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					cmd := exec.Command(path, append([]string{roots.Claude[0], roots.Codex[0], "-name", "*.jsonl"}, c.args...)...)
					cmd.Stdout = io.Discard
					if err := cmd.Run(); err != nil {
						b.Fatal(err)
					}
				}
				*c.per = perOp(b)
			})
		}
	}
	b.Run("baseline-readdir", func(b *testing.B) {
		for b.Loop() {
			if k := countFiles(roots.Claude[0]) + countFiles(roots.Codex[0]); k < n {
				b.Fatalf("walked %d files of %d", k, n)
			}
		}
		readdir = perOp(b)
	})
	report := func(b *testing.B) {
		per := perOp(b)
		if find > 0 {
			b.ReportMetric(per/find, "x-find")
			b.ReportMetric(per/findStat, "x-find-stat")
		}
		b.ReportMetric(per/readdir, "x-readdir")
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			tl := New(opts)
			tl.Scan(now)
			if got := tl.Stats().Roots[0].Files + tl.Stats().Roots[1].Files; got != n {
				b.Fatalf("found %d files of %d", got, n)
			}
		}
		report(b)
	})
	b.Run("scan-indexed", func(b *testing.B) {
		first := New(opts)
		first.Scan(now)
		index := first.Index()
		for b.Loop() {
			tl := New(opts)
			if err := tl.RestoreIndex(index); err != nil {
				b.Fatal(err)
			}
			tl.Scan(now)
		}
		report(b)
	})
}

// countFiles is a plain recursive os.ReadDir that stats nothing.
func countFiles(dir string) int {
	es, _ := os.ReadDir(dir)
	k := 0
	for _, e := range es {
		if e.IsDir() {
			k += countFiles(filepath.Join(dir, e.Name()))
		} else {
			k++
		}
	}
	return k
}
