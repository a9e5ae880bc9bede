package otlp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// maxSavedBytes is what the saved file may take whatever senders send:
// far below what is read of it (maxStoreBytes).
const maxSavedBytes = 16 << 20

// flood is n records of one kind, numbered from first, as a sender bent
// on filling the store sends them: every one new, the text as long as
// runway keeps it.
func flood(kind string, n, first int, now time.Time) Batch {
	long := func(i int) string {
		s := fmt.Sprintf("%d-", i)
		return s + strings.Repeat("x", maxText-len(s))
	}
	var b Batch
	for i := first; i < first+n; i++ {
		switch kind {
		case "series":
			// A session running since before the lookback: no event, a
			// series entry all the same (the defect of issue 25).
			b.Points = append(b.Points, Point{Session: "s", Host: "h", Type: "input", Series: fmt.Sprintf("%x", i),
				Start: now.Add(-7 * time.Hour), At: now, Cumulative: true, Value: 5})
		case "events":
			b.Events = append(b.Events, burn.Event{Provider: burn.Claude, Session: long(i), Project: long(i), Model: long(i), Host: long(i),
				At: now.Add(-time.Duration(i%3600) * time.Second), Key: keyLog + long(i) + "/" + long(i),
				Tokens: burn.Tokens{Input: 1, Output: 2}, Final: true})
		case "prompts":
			b.Prompts = append(b.Prompts, Prompt{Provider: burn.Claude, Session: long(i), At: now.Add(-time.Duration(i) * time.Millisecond)})
		}
	}
	return b
}

// checkBounds fails t when a kind of record is past its bounds or its
// bytes are not what its lines take.
func checkBounds(t testing.TB, s *Store) {
	t.Helper()
	check := func(kind string, n, most, bytes, mostBytes, lines int) {
		t.Helper()
		if n > most || bytes > mostBytes {
			t.Fatalf("%s: %d held in %d bytes, past the bounds %d and %d", kind, n, bytes, most, mostBytes)
		}
		if bytes != lines {
			t.Fatalf("%s: %d bytes counted, their lines take %d", kind, bytes, lines)
		}
	}
	lines := 0
	for _, ev := range s.events.m {
		lines += len(appendEvent(nil, ev))
	}
	check("events", s.events.len(), s.events.most, s.events.bytes, s.events.mostBytes, lines)
	lines = 0
	for k := range s.prompts.m {
		lines += len(appendPrompt(nil, k.prompt()))
	}
	check("prompts", s.prompts.len(), s.prompts.most, s.prompts.bytes, s.prompts.mostBytes, lines)
	lines = 0
	for k, c := range s.cumulative.m {
		lines += len(appendSeries(nil, k, c))
	}
	check("series", s.cumulative.len(), s.cumulative.most, s.cumulative.bytes, s.cumulative.mostBytes, lines)
	if len(s.fromLogs) > s.events.len() || len(s.fromMetrics) > s.events.len() {
		t.Fatalf("%d and %d sessions marked for %d events", len(s.fromLogs), len(s.fromMetrics), s.events.len())
	}
	sessions := map[sessionID]bool{}
	for _, ev := range s.events.m {
		sessions[sessionID{ev.Provider, ev.Session}] = true
	}
	if len(sessions) > s.mostSessions {
		t.Fatalf("%d sessions hold events, past the bound %d", len(sessions), s.mostSessions)
	}
}

// TestFloodsStayBounded: a sender's flood of any kind of record (issue 25:
// 840,000 cumulative series made a 53.5 MB remote.events holding no
// event) leaves the store within its bounds, the saved file under 16 MiB,
// the oldest let go and counted.
func TestFloodsStayBounded(t *testing.T) {
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		kind string
		n    int
		// got is the kind's count held and dropped.
		got func(s *Store) (int, int64)
	}{
		{"series", 60_000, func(s *Store) (int, int64) { return s.cumulative.len(), s.dropped().Series }},
		{"events", 30_000, func(s *Store) (int, int64) { return s.events.len(), s.dropped().Events }},
		{"prompts", 30_000, func(s *Store) (int, int64) { return s.prompts.len(), s.dropped().Prompts }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			s := NewStore(6*time.Hour, weight)
			var dropped int64
			const batch = 5_000
			for i := 0; i < tc.n; i += batch {
				a := s.Add(now, flood(tc.kind, batch, i, now))
				dropped += a.Dropped.Events + a.Dropped.Prompts + a.Dropped.Series
				checkBounds(t, s)
			}
			held, counted := tc.got(s)
			if counted == 0 || counted != dropped || int64(held)+counted != int64(tc.n) {
				t.Errorf("%d of %d held, %d dropped, %d said dropped", held, tc.n, counted, dropped)
			}
			dir := t.TempDir()
			if err := s.Save(dir); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(dir, StoreName))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > maxSavedBytes {
				t.Errorf("remote.events is %.1f MB", float64(fi.Size())/1e6)
			}
			back := NewStore(6*time.Hour, weight)
			if err := back.Load(dir, now); err != nil {
				t.Fatal(err)
			}
			checkBounds(t, back)
		})
	}
}

// TestStaleSessionsAreNotHeld: a response dated outside the lookback is
// not kept, nor is its session's name (they were, until the next prune:
// a flood of stale responses from new sessions grew the store without a
// bound).
func TestStaleSessionsAreNotHeld(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	now := t0.Add(time.Hour)
	b := flood("events", 1000, 0, now)
	for i := range b.Events {
		b.Events[i].At = now.Add(-7 * time.Hour)
	}
	if a := s.Add(now, b); a.Stale != 1000 {
		t.Errorf("%+v", a)
	}
	if len(s.fromLogs) != 0 {
		t.Errorf("%d sessions held for no event", len(s.fromLogs))
	}
}

// FuzzStoreBounds adds records made from arbitrary bytes, of every kind,
// to a store with small bounds: after every Add each kind is within its
// bounds with its bytes counted right, what was let go is what was said,
// and the saved file reads back within them.
func FuzzStoreBounds(f *testing.F) {
	f.Add([]byte("\x00\x05a\x01\x07bb\x02\x03c\x00\xffdddd\x02\x09e\x01\x00f"))
	f.Add([]byte(strings.Repeat("\x00\x10x\x02\x20y\x01\x30z", 40)))
	f.Add([]byte(strings.Repeat("\x02\x01\\\"\t", 60)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStore(6*time.Hour, weight)
		s.events.most, s.events.mostBytes = 8, 2000
		s.prompts.most, s.prompts.mostBytes = 4, 400
		s.cumulative.most, s.cumulative.mostBytes = 4, 300
		s.mostSessions = 3
		now := t0.Add(time.Hour)
		var said int64
		for len(data) >= 3 {
			kind, n := data[0]%3, int(data[1])
			text := string(data[2:min(len(data), 3+n%64)])
			data = data[min(len(data), 3+n%64):]
			at := now.Add(-time.Duration(n) * time.Minute)
			var b Batch
			switch kind {
			case 0:
				b.Events = []burn.Event{{Provider: burn.Claude, Session: clean(text), Host: clean(text), At: at,
					Key: keyLog + clean(text) + "/" + fmt.Sprint(n), Tokens: burn.Tokens{Output: int64(n) + 1}, Final: true}}
			case 1:
				b.Prompts = []Prompt{{Provider: burn.Codex, Session: clean(text), At: at}}
			case 2:
				b.Points = []Point{{Session: clean(text), Type: "output", Series: text, Start: at.Add(-time.Minute), At: at, Cumulative: true, Value: float64(n)}}
			}
			if b.Events != nil && b.Events[0].Session == "" || b.Prompts != nil && b.Prompts[0].Session == "" || b.Points != nil && b.Points[0].Session == "" {
				continue // the mapping never makes one
			}
			a := s.Add(now, b)
			said += a.Dropped.Events + a.Dropped.Prompts + a.Dropped.Series
			checkBounds(t, s)
			now = now.Add(time.Second)
		}
		if d := s.dropped(); d.Events+d.Prompts+d.Series != said {
			t.Fatalf("%+v dropped, %d said", d, said)
		}
		dir := t.TempDir()
		if err := s.Save(dir); err != nil {
			t.Fatal(err)
		}
		back := NewStore(6*time.Hour, weight)
		back.events.most, back.events.mostBytes = 8, 2000
		back.prompts.most, back.prompts.mostBytes = 4, 400
		back.cumulative.most, back.cumulative.mostBytes = 4, 300
		back.mostSessions = 3
		if err := back.Load(dir, now); err != nil {
			t.Fatal(err)
		}
		checkBounds(t, back)
		if back.Len() != s.Len() || back.cumulative.len() != s.cumulative.len() {
			t.Fatalf("read back %d events and %d series, saved %d and %d", back.Len(), back.cumulative.len(), s.Len(), s.cumulative.len())
		}
	})
}

// BenchmarkFlood is issue 25's goal: a sender's flood of 10 million
// distinct cumulative series (and of the longest responses and prompts),
// counted, leaves the store's heap and its saved file within the bounds.
// Run it once: go test -run '^$' -bench Flood -benchtime 1x ./otlp.
func BenchmarkFlood(b *testing.B) {
	for _, tc := range []struct {
		kind string
		n    int
	}{{"series", 10_000_000}, {"events", 1_000_000}, {"prompts", 1_000_000}} {
		b.Run(tc.kind, func(b *testing.B) {
			for b.Loop() {
				now := t0.Add(time.Hour)
				s := NewStore(6*time.Hour, weight)
				const batch = 100_000
				for i := 0; i < tc.n; i += batch {
					s.Add(now, flood(tc.kind, batch, i, now))
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				dir := b.TempDir()
				if err := s.Save(dir); err != nil {
					b.Fatal(err)
				}
				fi, err := os.Stat(filepath.Join(dir, StoreName))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-MB")
				b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
				d := s.dropped()
				b.ReportMetric(float64(d.Events+d.Prompts+d.Series), "dropped")
				runtime.KeepAlive(s)
			}
		})
	}
}

// TestEventsCopiesOnce: the engine asks for every event held at each
// refresh (every 5 s while a window is fresh); at the bounds that is 20 MB,
// and growing it by appends allocated four times that, which the serve's
// soft memory limit turned into GC work (an idle full serve used 24 % of a core).
func TestEventsCopiesOnce(t *testing.T) {
	now := t0.Add(time.Hour)
	s := NewStore(6*time.Hour, weight)
	b := Batch{}
	for i := range 5000 {
		b.Events = append(b.Events, burn.Event{Provider: burn.Claude, Session: fmt.Sprint("s", i%50), At: now.Add(-time.Duration(i) * time.Second),
			Key: keyLog + fmt.Sprint(i), Tokens: burn.Tokens{Output: 1}, Final: true})
	}
	s.Add(now, b)
	if n := testing.AllocsPerRun(3, func() { s.Events() }); n > 1 {
		t.Errorf("Events made %v allocations; want the one slice of its final size", n)
	}
}
