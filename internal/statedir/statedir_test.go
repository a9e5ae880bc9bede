package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestEnsureCreatesPrivateAndTightens(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows permission bits are synthesized")
	}
	dir := filepath.Join(t.TempDir(), "a", "state")
	if note, err := Ensure(dir); err != nil || note != "" {
		t.Fatalf("create: %q %v", note, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("created %v, want 0700", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o777)
	note, err := Ensure(dir)
	if err != nil || !strings.Contains(note, "tightened to 0700") {
		t.Fatalf("loose folder: %q %v", note, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("after tightening %v", fi.Mode().Perm())
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := Check(file); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a file as the folder: %v", err)
	}
	if _, err := Check(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Fatalf("a missing folder is fine to read: %v", err)
	}
}

func TestOpenRefusesLinksAndNonRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "private")
	os.WriteFile(target, []byte("mine"), 0o600)
	link := filepath.Join(dir, "samples.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	f, err := Open(link, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		f.Close()
		t.Fatal("opened through a link")
	}
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("link: %v", err)
	}
	if _, err := ReadFile(link, 10); err == nil {
		t.Fatal("read through a link")
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Fatalf("target changed: %q", b)
	}
	if _, err := Open(dir, os.O_RDONLY, 0); err == nil || !strings.Contains(err.Error(), "a folder") {
		t.Fatalf("a folder: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("x"), 0o600)
	if b, err := ReadFile(ok, 10); err != nil || string(b) != "x" {
		t.Fatalf("regular file: %q %v", b, err)
	}
}

// TestReadTail: only whole lines of the file's end, and whether that was
// all of it.
func TestReadTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o600)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		n     int64
		want  string
		whole bool
	}{
		{100, "one\ntwo\nthree\n", true},
		{14, "one\ntwo\nthree\n", true},
		// A read that starts past the file's start cannot tell whether it
		// starts a line: its first line is left out, whole or not.
		{11, "two\nthree\n", false}, // it starts at the line break before "two"
		{10, "three\n", false},
		{6, "", false},
		{0, "", false},
	} {
		b, whole, err := ReadTail(f, 14, tc.n)
		if err != nil || string(b) != tc.want || whole != tc.whole {
			t.Errorf("n=%d: %q %v %v, want %q %v", tc.n, b, whole, err, tc.want, tc.whole)
		}
	}
}
