// Package demo is the built-in sample history that `runway demo`, `now
// --demo`, `tray --demo` and `watch --demo` show: the files as the agents
// and runway write them, embedded, moved in time to end when the demo runs.
// internal/synth generates them (go test ./internal/synth -run DemoFiles
// -update); the binary ships only the files, not the generators.
package demo

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// End is the instant the embedded history ends; Write moves it.
var End = time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)

// files is synth.Demo's output at End, committed so the demo is the same
// bytes everywhere; synth's TestDemoFilesUpToDate keeps it in step.
//
//go:embed all:history
var files embed.FS

// Compiled when the demo is first written, not when a command that never
// shows it starts.
var (
	isoStamp   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"`) })
	epochReset = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(resets_at|resetsAt)":(\d{9,11})\b`) })
)

// Write copies the built-in history into dir with every instant moved so
// that it ends at end: dir/claude, dir/codex and dir/state.
func Write(dir string, end time.Time) error {
	shift := end.Sub(End)
	return fs.WalkDir(files, "history", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		b = Shift(b, shift)
		rel, _ := filepath.Rel("history", filepath.FromSlash(path))
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(out, b, 0o600); err != nil {
			return err
		}
		// The file was last written at its last line, as an agent's would
		// be: the log reader skips files modified before the lookback, so
		// a file stamped with the wall clock vanished from a demo that
		// ends more than the lookback after it (runway now --demo --at
		// a day ahead lost every session).
		last := lastInstant(b, end)
		return os.Chtimes(out, last, last)
	})
}

// lastInstant is the latest RFC 3339 instant in b not after end (later
// ones are resets to come), or end when b has none.
func lastInstant(b []byte, end time.Time) time.Time {
	var last time.Time
	for _, m := range isoStamp().FindAllSubmatch(b, -1) {
		t, err := time.Parse(time.RFC3339Nano, string(m[1]))
		if err == nil && !t.After(end) && t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		return end
	}
	return last
}

// Shift moves every RFC 3339 UTC instant and every epoch-seconds reset in b
// by d.
func Shift(b []byte, d time.Duration) []byte {
	b = isoStamp().ReplaceAllFunc(b, func(m []byte) []byte {
		t, err := time.Parse(time.RFC3339Nano, string(m[1:len(m)-1]))
		if err != nil {
			return m
		}
		if !bytes.Contains(m, []byte(".")) {
			return []byte(`"` + t.Add(d).UTC().Format(time.RFC3339) + `"`)
		}
		// Milliseconds, as the agents write them.
		return []byte(`"` + t.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
	})
	return epochReset().ReplaceAllFunc(b, func(m []byte) []byte {
		sub := epochReset().FindSubmatch(m)
		n, err := strconv.ParseInt(string(sub[2]), 10, 64)
		if err != nil {
			return m
		}
		return []byte(`"` + string(sub[1]) + `":` + strconv.FormatInt(n+int64(d/time.Second), 10))
	})
}
