package tail

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// The raw listing says what os.ReadDir says: every name but "." and "..",
// in name order, each with its type, over more entries than one getdents
// buffer holds.
func TestReadDirListsAsOSReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 700 { // ~40 bytes a record: more than 16 KB
		name := "session-" + strconv.Itoa(i) + "-with-a-long-enough-name.jsonl"
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	must(t, os.Symlink("sub", filepath.Join(dir, "link")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600))
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _, done, err := readDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].name != w.Name() || got[i].typ != w.Type() {
			t.Fatalf("entry %d: %q %v, want %q %v", i, got[i].name, got[i].typ, w.Name(), w.Type())
		}
	}
}

func TestReadDirOfAFileOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o600))
	if _, _, _, err := readDir(file); err == nil {
		t.Fatal("a file listed as a folder")
	}
	if _, _, _, err := readDir(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Fatalf("missing folder: %v, want not-exist", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dirent is one getdents64 record.
func dirent(ino uint64, typ uint8, name string) []byte {
	reclen := (19 + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.NativeEndian.PutUint64(b, ino)
	binary.NativeEndian.PutUint16(b[16:], uint16(reclen))
	b[18] = typ
	copy(b[19:], name)
	return b
}

// FuzzParseDirents: any buffer, never a panic, never "." or ".." or an
// empty name; records before damage are kept.
func FuzzParseDirents(f *testing.F) {
	f.Add(append(dirent(1, 8, "a.jsonl"), dirent(2, 4, "sub")...))
	f.Add(append(dirent(1, 4, "."), dirent(0, 8, "deleted")...))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range parseDirents(b, nil) {
			if e.name == "" || e.name == "." || e.name == ".." {
				t.Fatalf("entry %q", e.name)
			}
		}
		ok := dirent(9, 8, "kept.jsonl")
		if got := parseDirents(append(ok, b...), nil); len(got) == 0 || got[0].name != "kept.jsonl" {
			t.Fatalf("a good first record was lost: %v", got)
		}
	})
}

func TestUnderIsJoin(t *testing.T) {
	for _, c := range [][2]string{{"/", "projects"}, {"/home/dev/.claude/projects", "a.jsonl"}, {"rel/dir", "x"}} {
		if got, want := under(c[0], c[1]), filepath.Join(c[0], c[1]); got != want {
			t.Errorf("under(%q, %q) = %q, want %q", c[0], c[1], got, want)
		}
	}
}
