package runway_test

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agentrunway/runway"
	"github.com/agentrunway/runway/internal/synth"
)

// TestIndexStateFileRules: the index in the state folder is a cache that
// is never trusted blindly. Damaged, truncated, another program's or a
// symlink, it is ignored and rebuilt, the answer unchanged (a group-
// writable one in the private folder is the user's own); runs at the same
// time each leave a whole index.
func TestIndexStateFileRules(t *testing.T) {
	end := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	st, err := synth.History(t.TempDir(), synth.HistoryOptions{
		End: end, Size: 6 << 20, ActiveSize: 2 << 20, RecentBytes: 256 << 10, Seed: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	cold := historyEnv(t, st, 0)
	cold.NoIndex = true
	want := comparable(t, evaluateAt(cold, end))
	if _, err := os.Stat(filepath.Join(cold.StateDir, runway.IndexName)); err == nil {
		t.Fatal("NoIndex wrote an index")
	}

	env := historyEnv(t, st, 0)
	path := filepath.Join(env.StateDir, runway.IndexName)
	first := evaluateAt(env, end)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no index after a run: %v", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("index mode %v, want 0600", fi.Mode().Perm())
	}
	if got := comparable(t, first); got != want {
		t.Fatalf("first run differs from a cold read")
	}

	// A rebuilt index is whole: as long as the first (the same files and
	// state), its checksum right. Its bytes may differ from the first's:
	// whether a file's ctime had settled when read depends on the clock.
	whole := func(b []byte) bool {
		return len(b) == len(good) && len(b) > 4 &&
			crc32.ChecksumIEEE(b[:len(b)-4]) == binary.LittleEndian.Uint32(b[len(b)-4:])
	}
	check := func(name string, prepare func()) {
		t.Helper()
		prepare()
		ev := evaluateAt(env, end)
		if got := comparable(t, ev); got != want {
			t.Errorf("%s: the answer differs from a cold read", name)
		}
		b, err := os.ReadFile(path)
		if err != nil || !whole(b) {
			t.Errorf("%s: the index was not rebuilt (%v)", name, err)
		}
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: the index is not a regular file after the run", name)
		}
	}
	check("damaged", func() {
		b := append([]byte(nil), good...)
		b[len(b)/2] ^= 1
		os.WriteFile(path, b, 0o600)
	})
	check("truncated", func() { os.WriteFile(path, good[:len(good)/3], 0o600) })
	check("another program's file", func() { os.WriteFile(path, []byte("{}\n"), 0o600) })
	if runtime.GOOS != "windows" {
		check("group-writable", func() {
			os.WriteFile(path, good, 0o600)
			os.Chmod(path, 0o660)
		})
		elsewhere := filepath.Join(t.TempDir(), "planted")
		check("a symlink", func() {
			os.WriteFile(elsewhere, good, 0o600)
			os.Remove(path)
			if err := os.Symlink(elsewhere, path); err != nil {
				t.Fatal(err)
			}
		})
		if b, _ := os.ReadFile(elsewhere); string(b) != string(good) {
			t.Error("the symlink's target was written")
		}
	}

	// Concurrent runs: each replaces the index whole.
	os.Remove(path)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := comparable(t, evaluateAt(env, end)); got != want {
				t.Error("a concurrent run differs from a cold read")
			}
		})
	}
	wg.Wait()
	if b, _ := os.ReadFile(path); !whole(b) {
		t.Error("after concurrent runs the index is not whole")
	}
	if left, _ := filepath.Glob(filepath.Join(env.StateDir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
