package synth

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the embedded demo history from Demo")

func TestDemoFilesUpToDate(t *testing.T) {
	fresh := t.TempDir()
	if err := Demo(fresh, DemoEnd); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll("demo"); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS("demo", os.DirFS(fresh)); err != nil {
			t.Fatal(err)
		}
	}
	got := t.TempDir()
	if err := WriteDemo(got, DemoEnd); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(fresh, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fresh, p)
		want, _ := os.ReadFile(p)
		have, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil || !bytes.Equal(want, have) {
			t.Errorf("%s: embedded demo differs from Demo(); run go test ./internal/synth -run DemoFiles -update", rel)
		}
		n++
		return nil
	})
	if err != nil || n < 6 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

func TestShiftMovesEveryInstant(t *testing.T) {
	in := []byte(`{"timestamp":"2026-11-20T12:00:00.500Z","x":{"resets_at":1796107798},"observed_at":"2026-11-20T12:00:00Z","resetsAt":1796100622}`)
	got := string(Shift(in, time.Hour))
	want := `{"timestamp":"2026-11-20T13:00:00.500Z","x":{"resets_at":1796111398},"observed_at":"2026-11-20T13:00:00Z","resetsAt":1796104222}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// Tried as a new user would: runway now --demo --at a day after the wall
// clock lost every session, because the files kept the wall clock as their
// modification time and the log reader skips files older than its
// lookback. Each file is now modified at its last line, wherever end is.
func TestWriteDemoStampsFilesAtTheirLastLine(t *testing.T) {
	for _, end := range []time.Time{DemoEnd, DemoEnd.Add(90 * 24 * time.Hour), DemoEnd.Add(-400 * 24 * time.Hour)} {
		dir := t.TempDir()
		if err := WriteDemo(dir, end); err != nil {
			t.Fatal(err)
		}
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, _ := d.Info()
			if age := end.Sub(info.ModTime()); age < 0 || age > 3*time.Hour {
				t.Errorf("end %v: %s modified %v, %v before the end", end, path, info.ModTime(), age)
			}
			return nil
		})
	}
}
