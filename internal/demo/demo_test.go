package demo

import (
	"io/fs"
	"path/filepath"
	"testing"
	"time"
)

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
	for _, end := range []time.Time{End, End.Add(90 * 24 * time.Hour), End.Add(-400 * 24 * time.Hour)} {
		dir := t.TempDir()
		if err := Write(dir, end); err != nil {
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
