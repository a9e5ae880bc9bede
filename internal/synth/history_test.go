package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// historyLine is the part of a generated line the checks read.
type historyLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	Message   struct {
		ID    string `json:"id"`
		Usage *struct {
			Output int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
	Payload struct {
		Type string `json:"type"`
		Info struct {
			Total struct {
				Input int64 `json:"input_tokens"`
			} `json:"total_token_usage"`
			Last struct {
				Input int64 `json:"input_tokens"`
			} `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

func TestHistory(t *testing.T) {
	end := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	const size = 8 << 20
	st, err := History(dir, HistoryOptions{End: end, Size: size, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := ReadManifest(dir); err != nil || m != st {
		t.Fatalf("manifest %+v, %v; want %+v", m, err, st)
	}
	if st.Bytes < size*9/10 || st.Bytes > size*11/10 {
		t.Errorf("wrote %d bytes, want about %d", st.Bytes, size)
	}
	if st.ActiveBytes < size/16*8/10 || st.ActiveBytes > size/16*12/10 {
		t.Errorf("active session %d bytes, want about %d", st.ActiveBytes, size/16)
	}
	if _, err := os.Stat(filepath.Join(st.State, "samples.jsonl")); err != nil {
		t.Error(err)
	}

	var files, recent, recentActive int
	var total int64
	msgIDs := map[string]string{} // message id → its file
	for _, root := range []string{st.Claude, st.Codex} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if d.IsDir() {
				return nil
			}
			if !strings.HasSuffix(path, ".jsonl") {
				t.Errorf("unexpected file %s", path)
				return nil
			}
			info, _ := d.Info()
			files++
			total += info.Size()
			last := checkHistoryFile(t, path, root == st.Codex, msgIDs)
			if !info.ModTime().Equal(last) {
				t.Errorf("%s: modified %v, last line %v", path, info.ModTime(), last)
			}
			if end.Sub(last) < 6*time.Hour {
				recent++
				if path == st.Active && end.Sub(last) < time.Minute {
					recentActive++
				}
			}
			return nil
		})
	}
	if files != st.Files || total != st.Bytes {
		t.Errorf("found %d files, %d bytes; manifest says %d, %d", files, total, st.Files, st.Bytes)
	}
	if files < 50 {
		t.Errorf("only %d files: a history has many old sessions", files)
	}
	// The big session, its subagent, three other Claude sessions, a Codex rollout.
	if recent != 6 || recentActive != 1 {
		t.Errorf("%d files touched in the last 6 h (want 6), active session current: %d", recent, recentActive)
	}

	// The same seed writes the same bytes.
	again := t.TempDir()
	if _, err := History(again, HistoryOptions{End: end, Size: size, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(st.Active)
	b, _ := os.ReadFile(filepath.Join(again, strings.TrimPrefix(st.Active, dir)))
	if !bytes.Equal(a, b) {
		t.Error("the same seed wrote a different active session")
	}
}

// checkHistoryFile checks one file's lines: valid JSON in the agents' key
// order, every template value replaced, stamps never going back, message
// ids unique to their file and shared only by a response's streamed
// copies, Codex totals cumulative. It returns the last stamp.
func checkHistoryFile(t *testing.T, path string, codex bool, msgIDs map[string]string) time.Time {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	var last time.Time
	var prevMsg string
	var sum int64
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		var l historyLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		for _, left := range []string{"7770", "HOLEHOLE", tmplSession, tmplCwd, "66.25", "1666000031", "2001-02-03", `\u003c`} {
			if bytes.Contains(line, []byte(left)) {
				t.Fatalf("%s:%d: template value %q left in %s", path, n, left, line)
			}
		}
		at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if at.Before(last) {
			t.Fatalf("%s:%d: stamp %v before %v", path, n, at, last)
		}
		last = at
		if codex {
			if !bytes.HasPrefix(line, []byte(`{"timestamp":"`)) {
				t.Fatalf("%s:%d: a rollout line starts with its timestamp: %s", path, n, line[:min(len(line), 60)])
			}
			if l.Payload.Type == "token_count" {
				sum += l.Payload.Info.Last.Input
				if l.Payload.Info.Total.Input != sum {
					t.Fatalf("%s:%d: total input %d, want the running sum %d", path, n, l.Payload.Info.Total.Input, sum)
				}
			}
			continue
		}
		if l.Type == "assistant" {
			id := l.Message.ID
			if owner, ok := msgIDs[id]; ok && (owner != path || id != prevMsg) {
				t.Fatalf("%s:%d: message id %s reused (first in %s)", path, n, id, owner)
			}
			msgIDs[id] = path
			prevMsg = id
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return last
}

func TestHistoryLone(t *testing.T) {
	end := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	st, err := History(t.TempDir(), HistoryOptions{End: end, Size: 2 << 20, Lone: true, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var recent []string
	for _, root := range []string{st.Claude, st.Codex} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if info, ierr := d.Info(); err == nil && ierr == nil && !d.IsDir() && end.Sub(info.ModTime()) < 7*time.Hour {
				recent = append(recent, path)
			}
			return nil
		})
	}
	if len(recent) != 2 || !strings.Contains(recent[0]+recent[1], st.ActiveSession+".jsonl") {
		t.Errorf("recent files %v, want the big session and its subagent", recent)
	}
}
