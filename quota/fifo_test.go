//go:build unix

package quota

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO or a device in the sample log's place: every use of the log
// returns an error at once instead of blocking or reading forever.
func TestLogNotRegular(t *testing.T) {
	for name, mk := range map[string]func(string) error{
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"device": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, LogName)
			if err := mk(path); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				// A link to a device is refused as a link (O_NOFOLLOW).
				if _, err := OpenLog(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "symbolic link") {
					t.Errorf("OpenLog: %v", err)
				}
				l := &Log{path: path}
				if _, _, err := l.ReadAll(time.Time{}); err == nil {
					t.Error("ReadAll: no error")
				}
				if _, err := l.newest(time.Now()); err == nil {
					t.Error("newest: no error")
				}
				if err := l.Append(markedSample(0, 0)); err == nil {
					t.Error("Append: no error")
				}
				if err := l.Compact(time.Now(), time.Hour); err == nil {
					t.Error("Compact: no error")
				}
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("blocked on the log")
			}
		})
	}
}

// A FIFO where Claude Code's login or ~/.claude.json should be: the
// sources say so instead of hanging every runway process.
func TestCredentialsNotRegular(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(dir, ".credentials.json"), filepath.Join(home, ".claude.json")} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := &ClaudeSources{ConfigDirs: []string{dir}, Home: home, StateDir: t.TempDir(), Offline: true}
	done := make(chan SourceState)
	go func() {
		_, states := c.Poll(t.Context(), true)
		for _, st := range states {
			if st.Name == NameClaudeJSON && st.State == StateOK {
				t.Errorf("claude.json as a FIFO: %+v", st)
			}
		}
		done <- c.Login(t.Context())
	}()
	select {
	case st := <-done:
		if st.State != StateError || !strings.Contains(st.Detail, "not a regular file") {
			t.Errorf("login from a FIFO: %+v", st)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}
