package synth

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentrunway/runway/internal/demo"
)

var update = flag.Bool("update", false, "rewrite the embedded demo history from Demo")

// embedded is where internal/demo keeps the files it ships.
const embedded = "../demo/history"

func TestDemoFilesUpToDate(t *testing.T) {
	fresh := t.TempDir()
	if err := Demo(fresh, demo.End); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll(embedded); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(embedded, os.DirFS(fresh)); err != nil {
			t.Fatal(err)
		}
	}
	got := t.TempDir()
	if err := demo.Write(got, demo.End); err != nil {
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
