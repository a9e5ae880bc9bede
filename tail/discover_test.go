package tail

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

func TestDefaultRoots(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Roots
	}{
		{
			env:  nil,
			want: Roots{Claude: []string{"/home/ann/.claude", "/home/ann/.config/claude"}, Codex: []string{"/home/ann/.codex"}},
		},
		{
			env:  map[string]string{"CLAUDE_CONFIG_DIR": "/work/a, ~/b,,/work/a/", "XDG_CONFIG_HOME": "/xdg", "CODEX_HOME": "/c"},
			want: Roots{Claude: []string{"/work/a", "/home/ann/b", "/xdg/claude"}, Codex: []string{"/c"}},
		},
		{
			// The XDG dir named twice is listed once.
			env:  map[string]string{"CLAUDE_CONFIG_DIR": "/home/ann/.config/claude"},
			want: Roots{Claude: []string{"/home/ann/.config/claude"}, Codex: []string{"/home/ann/.codex"}},
		},
	} {
		got := DefaultRoots(func(k string) string { return tc.env[k] }, "/home/ann")
		for i := range got.Claude {
			got.Claude[i] = filepath.ToSlash(got.Claude[i])
		}
		for i := range got.Codex {
			got.Codex[i] = filepath.ToSlash(got.Codex[i])
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("env %v: got %+v, want %+v", tc.env, got, tc.want)
		}
	}
}

// Bad input on disk gives warnings, never a failure or a hang.
func TestDiscoverBadInput(t *testing.T) {
	tr := newTree(t)
	good := tr.claudeFile(sid)
	tr.write(good, claudeUser(0)+claudeAssistant(1, "msg_1", 10, "end_turn"))
	proj := filepath.Dir(good)
	// A symlink loop, a link to a session file, a dangling link.
	if err := os.Symlink("..", filepath.Join(proj, "loop")); err != nil {
		t.Skip("no symlinks:", err)
	}
	os.Symlink(good, filepath.Join(proj, "linked.jsonl"))
	os.Symlink(filepath.Join(proj, "gone"), filepath.Join(proj, "dangling.jsonl"))
	// A folder named like a session file.
	tr.mkdir(proj, "folder.jsonl")
	// Compressed rollouts are reported, not read.
	tr.write(filepath.Join(tr.codex, "sessions", "2026", "12", "01", "rollout-2026-12-01T09-00-00-x.jsonl.zst"), "\x28\xb5\x2f\xfd")
	// A Codex home whose sessions/ is a file.
	other := filepath.Join(t.TempDir(), "codex2")
	tr.mkdir(other)
	tr.write(filepath.Join(other, "sessions"), "not a folder")
	// A line longer than the limit, between good lines.
	long := tr.claudeFile("long")
	tr.write(long, claudeUser(2)+`{"type":"user","pad":"`+strings.Repeat("x", 3000)+`"}`+"\n"+claudeAssistant(3, "msg_L", 5, "end_turn"))

	roots := tr.roots()
	roots.Codex = append(roots.Codex, other)
	tl := New(Options{Roots: roots, CacheReadWeight: 0.1, MaxLineBytes: 1000})
	if err := tl.Scan(time.Now()); err != nil {
		t.Fatal(err)
	}
	u := tl.Usage(time.Time{})
	// msg_1 (also read through the link: the same key, counted once) and msg_L.
	if len(u.Events) != 2 {
		t.Errorf("%d events: %+v", len(u.Events), u.Events)
	}
	for _, part := range []string{"compressed rollouts", "skipped a line longer than 1000 bytes", "not a directory"} {
		if !hasWarning(u.Warnings, part) {
			t.Errorf("no warning about %q in %q", part, u.Warnings)
		}
	}
	s := tl.Stats()
	if s.Roots[1].Zst != 1 || s.Roots[0].Files < 3 {
		t.Errorf("stats %+v", s.Roots)
	}
}

// Old events leave memory as the lookback moves on, and a deleted file's
// with it at the next scan.
func TestPrune(t *testing.T) {
	tr := newTree(t)
	p := tr.claudeFile(sid)
	tr.write(p, claudeUser(0)+claudeAssistant(1, "msg_1", 10, "end_turn")+claudeUser(3600)+claudeAssistant(3601, "msg_2", 10, "end_turn"))
	now := at("2026-12-01T10:00:02Z")
	os.Chtimes(p, now, now)
	tl := New(Options{Roots: tr.roots(), Lookback: 2 * time.Hour})
	tl.Scan(now)
	if n := len(tl.Usage(time.Time{}).Events); n != 2 {
		t.Fatalf("%d events", n)
	}
	tl.Scan(now.Add(time.Hour))
	if n := len(tl.Usage(time.Time{}).Events); n != 1 {
		t.Errorf("%d events after an hour, want 1", n)
	}
	tl.mu.Lock()
	held := tl.files[p].log.held()
	tl.mu.Unlock()
	if held != 1 {
		t.Errorf("%d messages held", held)
	}
	os.Remove(p)
	tl.Scan(now.Add(time.Hour))
	if u := tl.Usage(time.Time{}); len(u.Events) != 0 || len(tl.files) != 0 {
		t.Errorf("deleted: %d events, %d files held", len(u.Events), len(tl.files))
	}
}

// A file that cannot be opened (here: gone between the walk and the open)
// is a warning for that file, not a failure.
func TestOpenFailureWarns(t *testing.T) {
	tr := newTree(t)
	p := tr.claudeFile(sid)
	tr.write(p, claudeUser(0))
	info, _ := os.Stat(p)
	os.Remove(p)
	tl := New(Options{Roots: tr.roots()})
	tl.mu.Lock()
	tl.refreshLocked(p, candidate{provider: burn.Claude, info: info}, time.Time{}, true)
	tl.mu.Unlock()
	if u := tl.Usage(time.Time{}); !hasWarning(u.Warnings, "tail: open "+p) {
		t.Errorf("warnings %q", u.Warnings)
	}
}

// 2,000 files that cannot be opened are one warning with the count and a
// few examples, in Usage and in Stats; three are three.
func TestUnreadableFilesGrouped(t *testing.T) {
	for _, n := range []int{3, 2000} {
		tr := newTree(t)
		p := tr.claudeFile(sid)
		tr.write(p, claudeUser(0))
		info, _ := os.Stat(p)
		tl := New(Options{Roots: tr.roots()})
		tl.mu.Lock()
		for i := range n {
			tl.refreshLocked(filepath.Join(filepath.Dir(p), fmt.Sprintf("gone-%04d.jsonl", i)), candidate{provider: burn.Claude, info: info}, time.Time{}, true)
		}
		tl.mu.Unlock()
		for what, ws := range map[string][]string{"usage": tl.Usage(time.Time{}).Warnings, "stats": tl.Stats().Warnings} {
			var open []string
			for _, w := range ws {
				if strings.HasPrefix(w, "tail: open ") {
					open = append(open, w)
				}
			}
			switch {
			case n == 3 && len(open) != 3:
				t.Errorf("%s: %d open warnings for 3 files, want 3: %q", what, len(open), open)
			case n == 2000 && (len(open) != 1 || !strings.Contains(open[0], "open 2000 paths: no such file or directory") ||
				!strings.Contains(open[0], "gone-0000.jsonl") || !strings.Contains(open[0], "and 1997 more")):
				t.Errorf("%s: %d open warnings for 2000 files, want one grouped: %.300q", what, len(open), open)
			}
		}
	}
}

// A folder link inside a root is followed only when it leads inside a
// root: a link to / or to a folder elsewhere is said, not walked. A root's
// own folders may be links (to another disk).
func TestFolderLinksStayInside(t *testing.T) {
	tr := newTree(t)
	elsewhere := t.TempDir()
	tr.write(filepath.Join(elsewhere, "e1e1e1e1-1111-4222-8333-444455556666.jsonl"), claudeAssistant(0, "msg_OUTSIDE", 10, "end_turn"))
	other := tr.mkdir(tr.claude, "projects", "-home-ann-src-other")
	tr.write(filepath.Join(other, "a1a1a1a1-1111-4222-8333-444455556666.jsonl"), claudeAssistant(1, "msg_INSIDE", 10, "end_turn"))
	project := filepath.Dir(tr.claudeFile(sid))
	for name, to := range map[string]string{"to-elsewhere": elsewhere, "to-root": "/", "to-other": other} {
		if err := os.Symlink(to, filepath.Join(project, name)); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	// Codex's sessions folder is itself a link to another disk.
	disk := t.TempDir()
	if err := os.Rename(filepath.Join(tr.codex, "sessions"), filepath.Join(disk, "sessions")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(disk, "sessions"), filepath.Join(tr.codex, "sessions")); err != nil {
		t.Fatal(err)
	}
	tr.write(tr.rollout("01", "01a22fc0-0000-7000-8000-0000000000aa"), codexMeta(0, "01a22fc0-0000-7000-8000-0000000000aa")+codexCount(1, 1000, 10))

	u := coldRead(t, tr.roots())
	keys := map[string]bool{}
	for _, e := range u.Events {
		keys[strings.SplitN(e.Key, "/", 2)[0]] = true
	}
	if keys["msg_OUTSIDE"] || !keys["msg_INSIDE"] || !keys["01a22fc0-0000-7000-8000-0000000000aa@1000"] {
		t.Errorf("events %v: want the one inside the root and the rollout behind the linked sessions folder, not the one elsewhere", keys)
	}
	for _, name := range []string{"to-elsewhere", "to-root"} {
		if !hasWarning(u.Warnings, "did not follow the folder link "+filepath.Join(project, name)) {
			t.Errorf("no warning names the link %s: %q", name, u.Warnings)
		}
	}
	if hasWarning(u.Warnings, "to-other") {
		t.Errorf("a link inside the root is warned about: %q", u.Warnings)
	}
}
