package burn

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// FuzzSnapshotJSON: whatever a snapshot file holds (`runway now` reads the
// tray's), a snapshot that decodes encodes again, and that encoding is
// stable.
func FuzzSnapshotJSON(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "snapshot.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"at":"2026-11-20T13:00:00+02:00","providers":null,"sessions":[{"tokens_per_s":1e308}]}`))
	two, _ := json.Marshal(Compute(twoLogins(), DefaultConfig()))
	f.Add(two)
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Snapshot
		if json.Unmarshal(b, &s) != nil {
			return
		}
		// A decoded snapshot is something Decide may be handed.
		Decide(roundTrip(t, s), NoticeMemory{}, DefaultConfig())
		// and a surface, login by login.
		Gate(s)
		for _, p := range s.Providers {
			if q := s.ProviderOf(p.Provider, p.Account); q == nil {
				t.Fatalf("status %+v not found by its login", p)
			}
			s.SessionsOfStatus(p)
		}
	})
}

// FuzzNoticeMemory: a notice memory file may be old, hand-edited or
// corrupt; Decide copes and never repeats what it just decided.
func FuzzNoticeMemory(f *testing.F) {
	f.Add([]byte(`{"sent":{"claude/5h/2026-11-20T11:00:00Z/burning_fast/30":"2026-11-20T10:00:00Z"}}`))
	f.Add([]byte(`{"sent":{"claude/5h/x/low":"2026-11-20T10:00:00Z","a/b/c/d/e/f":"0001-01-01T00:00:00Z"},"calm":{"claude/5h/2026-11-20T11:00:00Z":"2026-11-20T10:00:00Z"}}`))
	f.Add([]byte(`{"sent":{"claude@aaaa1111/5h/2026-11-20T12:00:00Z/low":"2026-11-20T10:00:00Z","claude@/5h/2026-11-20T12:00:00Z/low":"2026-11-20T10:00:00Z"}}`))
	// One login, and two (their notices keyed apart).
	snaps := []Snapshot{Compute(exampleInput(), DefaultConfig()), Compute(twoLogins(), DefaultConfig())}
	f.Fuzz(func(t *testing.T, b []byte) {
		var mem NoticeMemory
		if json.Unmarshal(b, &mem) != nil {
			return
		}
		cfg := DefaultConfig()
		cfg.NotifyReset = true
		for _, s := range snaps {
			ns, next := Decide(s, mem, cfg)
			again, after := Decide(s, next, cfg)
			if len(again) != 0 {
				t.Fatalf("decided twice: %+v then %+v", ns, again)
			}
			for k := range after.Sent {
				if _, ok := next.Sent[k]; !ok {
					t.Fatalf("the memory grew without a notice: %q", k)
				}
			}
		}
	})
}

// FuzzSamples: whatever a sample says, the model's figures stay finite,
// non-negative and consistent at any instant near the samples.
func FuzzSamples(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "samples.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	end := time.Date(2026, 11, 20, 13, 35, 0, 0, time.UTC)
	for line := range bytes.Lines(b) {
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			f.Fatalf("%s: %v", line, err)
		}
		f.Add(string(s.Provider), string(s.Window), s.WindowMinutes, s.UsedPercent, string(s.Source),
			s.ObservedAt.Sub(end).Milliseconds(), s.ResetsAt.Unix(), int64(4*60))
	}
	fixture := holdFixture(end)
	f.Fuzz(func(t *testing.T, provider, window string, minutes int, used float64, source string, observed, resets, after int64) {
		s := Sample{
			ObservedAt:    end.Add(time.Duration(observed) * time.Millisecond),
			Provider:      Provider(provider),
			Window:        WindowClass(window),
			WindowMinutes: minutes,
			UsedPercent:   used,
			Source:        Source(source),
		}
		if resets != 0 {
			s.ResetsAt = time.Unix(resets, 0)
		}
		in := fixture
		in.Now = end.Add(time.Duration(after%(8*24*3600)) * time.Second)
		in.Samples = append(slices.Clip(fixture.Samples), s)
		in.Activity = []Activity{{Provider: Claude, Session: "big", At: in.Now.Add(-20 * time.Second)}}
		snap := Compute(in, DefaultConfig())
		checkSnapshot(t, snap)
		Decide(snap, NoticeMemory{}, DefaultConfig())
	})
}
