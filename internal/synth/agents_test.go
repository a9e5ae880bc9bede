package synth

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func playFor(t *testing.T, dir string, d time.Duration, check func(a *Agents)) *Agents {
	t.Helper()
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	a, err := NewAgents(dir, AgentsOptions{Sessions: 12, Start: start, Seed: 5, DayTurnsAfter: 20 * time.Minute,
		SplitEvery: 5, ChurnEvery: 3 * time.Minute, ResumeAfter: 10 * time.Minute, BurnPerHour: 150})
	if err != nil {
		t.Fatal(err)
	}
	for i, at := 0, start; at.Before(start.Add(d)); i, at = i+1, at.Add(7*time.Second) {
		if err := a.Play(at); err != nil {
			t.Fatal(err)
		}
		if check != nil && i%4 == 0 {
			check(a)
		}
	}
	return a
}

// files maps every file under dir to its content.
func files(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
		}
		return nil
	})
	return out
}

// stamp reads a line's timestamp: an envelope's, a transcript line's or a
// sample's.
func lineStamp(line []byte) (time.Time, bool) {
	var v struct {
		Timestamp  time.Time `json:"timestamp"`
		ObservedAt time.Time `json:"observed_at"`
	}
	if json.Unmarshal(line, &v) != nil {
		return time.Time{}, false
	}
	if v.Timestamp.IsZero() {
		return v.ObservedAt, !v.ObservedAt.IsZero()
	}
	return v.Timestamp, true
}

func TestAgentsNeverWriteAhead(t *testing.T) {
	dir := t.TempDir()
	a := playFor(t, dir, 40*time.Minute, func(a *Agents) {
		for path, b := range files(t, dir) {
			var last time.Time
			for i, line := range bytes.Split(b, []byte{'\n'}) {
				at, ok := lineStamp(line)
				if !ok {
					continue // a split line's first part, a rewritten file's head
				}
				if at.After(a.Now()) {
					t.Fatalf("%s line %d stamped %v, after the play clock %v", path, i+1, at, a.Now())
				}
				if at.Before(last) && !strings.HasSuffix(path, "samples.jsonl") {
					t.Fatalf("%s line %d stamped %v, before the line above it (%v)", path, i+1, at, last)
				}
				last = at
			}
		}
	})
	st := a.Stats()
	for name, n := range map[string]int{"split": st.Split, "truncated": st.Truncated, "replaced": st.Replaced,
		"rewritten": st.Rewritten, "deleted": st.Deleted, "resumed": st.Resumed, "day folders": st.DayFolders,
		"subagents": st.Subagents, "samples": st.Samples, "limit hits": st.LimitHits} {
		if n == 0 {
			t.Errorf("no %s in 40 minutes of play", name)
		}
	}
	t.Logf("%+v", st)
}

func TestAgentsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	playFor(t, a, 15*time.Minute, nil)
	playFor(t, b, 15*time.Minute, nil)
	fa, fb := files(t, a), files(t, b)
	if len(fa) != len(fb) {
		t.Fatalf("%d files, then %d", len(fa), len(fb))
	}
	for p, x := range fa {
		if !bytes.Equal(x, fb[p]) {
			t.Errorf("%s differs between two plays of one seed", p)
		}
	}
}
