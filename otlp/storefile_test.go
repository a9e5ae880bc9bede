package otlp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
)

// storeOf is a store holding 1,000 sessions × perSession responses, one
// every 10 s per session, ending at t0+1h.
func storeOf(tb testing.TB, perSession int) *Store {
	tb.Helper()
	s := NewStore(6*time.Hour, weight)
	for round := 0; round < perSession/10; round++ {
		body := exportOf(tb, 1000, 10, round+1, t0.Add(time.Duration(round)*100*time.Second))
		b, err := Decode(Logs, Protobuf, body, "h", weight)
		if err != nil {
			tb.Fatal(err)
		}
		s.Add(t0.Add(time.Hour), b)
	}
	return s
}

// BenchmarkReadEvents is what a cold `runway now` pays to read 100,000
// remote events (1,000 sessions), whole and with only the last 10 minutes
// inside the lookback.
func BenchmarkReadEvents(b *testing.B) {
	if testing.Short() {
		b.Skip("fills 100,000 events")
	}
	s := storeOf(b, 100)
	events := s.Events()
	if len(events) != 100_000 {
		b.Fatalf("%d events", len(events))
	}
	current := encodeStore(events, nil, nil, ReceiverState{Listen: DefaultListenForTest})
	b.Run("lines-v2", func(b *testing.B) {
		b.SetBytes(int64(len(current)))
		b.ReportAllocs()
		for b.Loop() {
			if c, err := decodeStore(current, weight, time.Time{}); err != nil || len(c.events) != len(events) {
				b.Fatal(err, len(c.events))
			}
		}
	})
	b.Run("lines-v2-last-10min", func(b *testing.B) {
		since := events[len(events)-1].At.Add(-10 * time.Minute)
		b.ReportAllocs()
		for b.Loop() {
			if c, err := decodeStore(current, weight, since); err != nil || len(c.events) == 0 || len(c.events) == len(events) {
				b.Fatal(err, len(c.events))
			}
		}
	})
}

// DefaultListenForTest is an address as the serving process saves it.
const DefaultListenForTest = "127.0.0.1:4318"

// TestStoreFileRoundTrip: every field of every event, the cumulative
// series and the receiver's counts come back as saved, text with tabs,
// line breaks and quotes included.
func TestStoreFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	odd := "a\tb\nc\\d"
	s := NewStore(6*time.Hour, weight)
	s.SetListen(DefaultListenForTest)
	s.Add(t0, Batch{Events: []burn.Event{
		{Provider: burn.Claude, Session: "s1", Project: odd, Model: `"quoted`, Host: "devbox", At: t0, TurnStart: t0.Add(-time.Minute),
			Key: keyLog + "s1/r1", Tokens: burn.Tokens{Input: 1, Output: 2, CacheCreation: 3, CacheRead: 4}, Final: true},
		{Provider: burn.Codex, Session: "s2", Host: "ci", At: t0.Add(time.Second), Key: keyLog + odd,
			Tokens: burn.Tokens{Output: 7}, Final: true},
	}})
	s.cumulative.set("series/input", cumulativeState{Start: t0.Add(-time.Hour), At: t0, Value: 12.5})
	// s1's user prompted again after its response: that response ended
	// its turn.
	s.Add(t0, Batch{Prompts: []Prompt{{Provider: burn.Claude, Session: odd, At: t0}, {Provider: burn.Claude, Session: "s1", At: t0.Add(2 * time.Second)}}})
	s.noteRequest("logs", outcomeOK, t0)
	s.noteRequest("metrics", outcomeGRPC, t0.Add(time.Minute))
	s.noteRequest("logs", outcomeMalformed, t0)
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	back := NewStore(6*time.Hour, weight)
	if err := back.Load(dir, t0); err != nil {
		t.Fatal(err)
	}
	got, want := back.Events(), s.Events()
	if len(got) != len(want) {
		t.Fatalf("%d events back, %d saved", len(got), len(want))
	}
	if !want[0].EndsTurn || want[1].EndsTurn {
		t.Errorf("ends of turns: %v %v, want the first only", want[0].EndsTurn, want[1].EndsTurn)
	}
	for i := range want {
		// Text is made printable on the way in, as the receiver does.
		w := want[i]
		w.Project, w.Model, w.Weighted = clean(w.Project), clean(w.Model), w.Tokens.Weighted(weight)
		if got[i] != w {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	if back.cumulative.m["series/input"] != s.cumulative.m["series/input"] {
		t.Errorf("cumulative %+v", back.cumulative.m)
	}
	_, recv, err := ReadState(dir, weight)
	if err != nil {
		t.Fatal(err)
	}
	if recv.Listen != DefaultListenForTest || recv.Refused() != 2 || recv.Count(OutcomeGRPC) != 1 || !recv.LastGRPC.Equal(t0.Add(time.Minute)) || recv.Saved.IsZero() {
		t.Errorf("receiver state %+v", recv)
	}
	// Only what is inside the lookback is read.
	late, err := ReadEvents(dir, weight, t0.Add(time.Second))
	if err != nil || len(late) != 1 || late[0].Session != "s2" {
		t.Errorf("since t0+1s: %+v %v", late, err)
	}
	if gone := NewStore(6*time.Hour, weight); gone.Load(dir, t0.Add(7*time.Hour)) != nil || gone.Len() != 0 {
		t.Errorf("%d events loaded past the lookback", gone.Len())
	}
}

// TestStoreFileDamaged: a torn, foreign, edited or older file (version 2,
// before prompts were kept; the JSON of version 1) is refused with what to
// do, never half read.
func TestStoreFileDamaged(t *testing.T) {
	s := NewStore(6*time.Hour, weight)
	s.Add(t0, Batch{Events: []burn.Event{{Provider: burn.Claude, Session: "s1", At: t0, Key: keyLog + "r1", Tokens: burn.Tokens{Input: 1}}}})
	good := string(encodeStore(s.Events(), nil, nil, ReceiverState{}))
	for name, body := range map[string]string{
		"torn":       good[:len(good)-3],
		"no header":  strings.TrimPrefix(good, storeHeader),
		"bad number": strings.Replace(good, "\t1\t0\t0\t0\n", "\tx\t0\t0\t0\n", 1),
		"unknown":    good + "z\t1\n",
		"json":       `{"version":1,"events":[]}`,
		"version 2":  strings.Replace(good, storeHeader, "runway remote 2\n", 1),
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, StoreName), []byte(body), 0o600)
		if _, err := ReadEvents(dir, weight, time.Time{}); err == nil || !strings.Contains(err.Error(), "delete it") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// FuzzStoreFile: whatever the file holds, reading it does not panic, and
// what it keeps is a plausible event with printable text.
func FuzzStoreFile(f *testing.F) {
	s := NewStore(6*time.Hour, weight)
	s.Add(t0, Batch{Events: []burn.Event{
		{Provider: burn.Claude, Session: "s1", Project: "a\tb", Host: "h", At: t0, Key: keyLog + "r1", Tokens: burn.Tokens{Input: 1, Output: 2}},
	}})
	s.cumulative.set("k", cumulativeState{Start: t0, At: t0, Value: 3})
	prompts := []Prompt{{Provider: burn.Claude, Session: "s1", At: t0.Add(-time.Second)}, {Provider: burn.Claude, Session: "s1", At: t0.Add(time.Minute)}}
	seed := encodeStore(s.Events(), prompts, s.cumulative.m, ReceiverState{Listen: "127.0.0.1:4318", Requests: map[[2]string]int64{{"logs", "ok"}: 3}, LastGRPC: t0})
	f.Add(seed)
	f.Add([]byte(storeHeader))
	f.Add([]byte(storeHeader + "p\tclaude\ts1\t1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeStore(b, weight, time.Time{})
		if err != nil {
			return
		}
		for _, p := range c.prompts {
			if p.Provider != burn.Claude && p.Provider != burn.Codex || p.Session == "" || strings.ContainsAny(p.Session, "\t\n\r\x00\x1b") {
				t.Fatalf("implausible prompt %+v", p)
			}
		}
		for _, ev := range c.turnsMarked() {
			if ev.Provider != burn.Claude && ev.Provider != burn.Codex || ev.Session == "" || ev.At.IsZero() || min(ev.Tokens.Input, ev.Tokens.Output, ev.Tokens.CacheRead, ev.Tokens.CacheCreation) < 0 || ev.Weighted < 0 {
				t.Fatalf("implausible event %+v", ev)
			}
			for _, s := range []string{ev.Session, ev.Host, ev.Model, ev.Project} {
				if strings.ContainsAny(s, "\t\n\r\x00\x1b") {
					t.Fatalf("unprintable text %q", s)
				}
			}
		}
	})
}
