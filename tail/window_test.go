package tail

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// TestLongLineAcrossReads: a line longer than the limit that is still
// being written is skipped to its end by the next read, which warns of it
// at the offset it starts at, as a cold read does (it said offset -1).
func TestLongLineAcrossReads(t *testing.T) {
	tr := newTree(t)
	p := tr.claudeFile(sid)
	long := `{"type":"user","pad":"` + strings.Repeat("x", 3000) + `"}` + "\n"
	tr.write(p, claudeUser(0)+long[:2000])
	opts := Options{Roots: tr.roots(), CacheReadWeight: 0.1, MaxLineBytes: 1000}
	now := at("2026-12-01T09:10:00Z")
	live := New(opts)
	live.Scan(now)
	tr.append(p, long[2000:]+claudeAssistant(3, "msg_L", 5, "end_turn"))
	live.Scan(now)
	cold := New(opts)
	cold.Scan(now)
	got, want := live.Usage(time.Time{}), cold.Usage(time.Time{})
	if !reflect.DeepEqual(got, want) || len(want.Events) != 1 || !hasWarning(want.Warnings, fmt.Sprintf("at offset %d", len(claudeUser(0)))) {
		t.Errorf("live differs from a cold read, or the cold read is wrong:\n%s\ncold: %+v", diffUsage(got, want), want)
	}
}

func stampedLines(n int, start time.Time, step time.Duration) (string, []int64) {
	var b strings.Builder
	var offs []int64
	for i := range n {
		offs = append(offs, int64(b.Len()))
		b.WriteString(`{"type":"x","pad":"` + strings.Repeat("p", i%7*100) + `","timestamp":"` + start.Add(time.Duration(i)*step).Format(time.RFC3339Nano) + `"}` + "\n")
		if i%10 == 3 {
			b.WriteString(`{"type":"summary","no":"stamp"}` + "\n") // lines without a stamp
		}
	}
	return b.String(), offs
}

func TestBoundary(t *testing.T) {
	start := at("2026-11-20T00:00:00Z")
	data, offs := stampedLines(5000, start, time.Second)
	r := strings.NewReader(data)
	for _, k := range []int{0, 1, 2, 1000, 2500, 4000, 4999} {
		from := start.Add(time.Duration(k) * time.Second)
		b, bAt, err := boundary(r, nil, int64(len(data)), 1<<20, func(at time.Time) bool { return at.Before(from) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The window starts after the last line older than from (or its
		// unstamped followers).
		if k == 0 {
			if b != 0 || !bAt.IsZero() {
				t.Errorf("k=0: %d %v", b, bAt)
			}
			continue
		}
		wantAt := start.Add(time.Duration(k-1) * time.Second)
		if b <= offs[k-1] || b > offs[k] || !bAt.Equal(wantAt) {
			t.Errorf("k=%d: boundary %d (line %d at %d, next at %d), stamp %v want %v", k, b, k-1, offs[k-1], offs[k], bAt, wantAt)
		}
	}
	// A stamp after every line: nothing is old.
	b, _, _ := boundary(r, nil, int64(len(data)), 1<<20, func(time.Time) bool { return false }, nil)
	if b != 0 {
		t.Errorf("none old: %d", b)
	}
}

// writeTree writes one generated transcript into a Claude root (or rollout
// into a Codex home) and returns the roots and the file.
func writeTree(t testing.TB, dir string, codex bool, size int64, start, end time.Time) (Roots, string) {
	t.Helper()
	var path string
	var roots Roots
	if codex {
		path = filepath.Join(dir, "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T00-00-00-01a22fc0-1111-7000-8000-000000000abc.jsonl")
		roots.Codex = []string{filepath.Join(dir, "codex")}
	} else {
		path = filepath.Join(dir, "claude", "projects", "-home-dev-src-big", "5b1d9f0e-2222-4333-8444-a55566667777.jsonl")
		roots.Claude = []string{filepath.Join(dir, "claude")}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	h := newHistory(7)
	if codex {
		h.codex(f, size, start, end)
	} else {
		h.claude(f, size, start, end)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, end, end); err != nil {
		t.Fatal(err)
	}
	return roots, path
}

// bytesSince counts the bytes of the lines stamped at or after from.
func bytesSince(t testing.TB, path string, from time.Time) int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var n int64
	for sc.Scan() {
		if at, ok := lineStamp(sc.Bytes()); ok && !at.Before(from) {
			n += int64(len(sc.Bytes()) + 1)
		}
	}
	return n
}

// The cold start reads about the bytes inside the lookback, not the file.
func TestWindowBytesRead(t *testing.T) {
	for _, codex := range []bool{false, true} {
		name := map[bool]string{false: "claude", true: "codex"}[codex]
		t.Run(name, func(t *testing.T) {
			end := at("2026-11-20T20:00:00Z")
			roots, path := writeTree(t, t.TempDir(), codex, 20<<20, end.Add(-10*time.Hour), end)
			from := end.Add(-time.Hour)
			inside := bytesSince(t, path, from)
			info, _ := os.Stat(path)

			tl := New(Options{Roots: roots, CacheReadWeight: 0.1, Lookback: time.Hour})
			if err := tl.Scan(end); err != nil {
				t.Fatal(err)
			}
			read := tl.Stats().BytesRead
			t.Logf("file %d bytes, %d inside the lookback, %d read (%.2fx)", info.Size(), inside, read, float64(read)/float64(inside))
			if read < inside || read > inside*3/2+512<<10 {
				t.Errorf("read %d bytes for %d inside the lookback", read, inside)
			}

			// And it finds what a full read finds inside the window.
			all := New(Options{Roots: roots, CacheReadWeight: 0.1})
			all.Scan(end)
			got, want := tl.Usage(from), all.Usage(from)
			if len(got.Events) == 0 || len(got.Events) != len(want.Events) {
				t.Fatalf("%d events, want %d", len(got.Events), len(want.Events))
			}
			for i := range want.Events {
				g, w := got.Events[i], want.Events[i]
				g.TurnStart, w.TurnStart = time.Time{}, time.Time{}
				if g != w {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, g, w)
					break
				}
			}
			if len(got.Samples) != len(want.Samples) {
				t.Errorf("%d samples, want %d", len(got.Samples), len(want.Samples))
			}
		})
	}
}

// A session resumed after a night: the cold read starts mid-file, takes
// the thread from the first line and the first usage from last_token_usage.
func TestWindowResumedMidFile(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "codex", "resumed.jsonl"), filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T20-00-00-x.jsonl"))
	now := at("2026-12-01T07:30:00Z")
	tl := New(Options{Roots: Roots{Codex: []string{dir}}, CacheReadWeight: 0.1, Lookback: 5 * time.Hour})
	tl.Scan(now)
	const T = "01a22fc0-0000-7000-8000-000000000007"
	first := codexEvent(T+"@97600", T, "", "gpt-5.1-codex-max", "2026-12-01T07:00:40Z", "2026-12-01T07:00:00Z",
		burn.Tokens{Input: 15000, CacheRead: 40000, Output: 1400})
	u := tl.Usage(time.Time{})
	checkEvents(t, u.Events, []burn.Event{first, endsTurn(codexEvent(T+"@163000", T, "", "gpt-5.1-codex-max", "2026-12-01T07:01:40Z",
		"2026-12-01T07:00:40Z", burn.Tokens{Input: 10000, CacheRead: 55000, Output: 400}))})
	checkActivity(t, u.Activity, burn.Activity{Provider: burn.Codex, Session: T, At: at("2026-12-01T07:01:40.010Z"), TurnEnded: true})

	// As of a past instant: only what was stamped by then.
	tl = New(Options{Roots: Roots{Codex: []string{dir}}, CacheReadWeight: 0.1, Lookback: 5 * time.Hour, Until: at("2026-12-01T07:01:00Z")})
	tl.Scan(at("2026-12-01T07:01:00Z"))
	u = tl.Usage(time.Time{})
	checkEvents(t, u.Events, []burn.Event{first})
	checkActivity(t, u.Activity, burn.Activity{Provider: burn.Codex, Session: T, At: at("2026-12-01T07:00:40Z")})
	if len(u.Samples) != 2 || u.Samples[0].ObservedAt.After(at("2026-12-01T07:01:00Z")) {
		t.Errorf("samples %+v", u.Samples)
	}
}

// A file untouched inside the lookback is not opened at all.
func TestWindowSkipsOldFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "p", "old.jsonl")
	copyFile(t, filepath.Join("testdata", "claude", "no-request-id.jsonl"), path)
	old := at("2026-11-20T11:02:00Z")
	os.Chtimes(path, old, old)
	tl := New(Options{Roots: Roots{Claude: []string{dir}}, Lookback: time.Hour})
	tl.Scan(old.Add(2 * time.Hour))
	s := tl.Stats()
	if s.BytesRead != 0 || s.Roots[0].Files != 1 || s.Roots[0].InWindow != 0 {
		t.Errorf("stats %+v", s)
	}
	if !bytes.Equal([]byte(s.Roots[0].Newest), []byte(path)) {
		t.Errorf("newest %q", s.Roots[0].Newest)
	}
}
