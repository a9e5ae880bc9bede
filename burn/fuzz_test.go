package burn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
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
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Snapshot
		if json.Unmarshal(b, &s) != nil {
			return
		}
		once, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var back Snapshot
		if err := json.Unmarshal(once, &back); err != nil {
			t.Fatalf("unmarshal our own: %v\n%s", err, once)
		}
		twice, err := json.Marshal(back)
		if err != nil || string(once) != string(twice) {
			t.Fatalf("unstable:\n%s\n%s", once, twice)
		}
		// A decoded snapshot is something Decide may be handed.
		Decide(back, NoticeMemory{}, DefaultConfig())
	})
}

// FuzzNoticeMemory: a notice memory file may be old, hand-edited or
// corrupt; Decide copes and never repeats what it just decided.
func FuzzNoticeMemory(f *testing.F) {
	f.Add([]byte(`{"sent":{"claude/5h/2026-11-20T11:00:00Z/burning_fast/30":"2026-11-20T10:00:00Z"}}`))
	f.Add([]byte(`{"sent":{"claude/5h/x/low":"2026-11-20T10:00:00Z","a/b/c/d/e/f":"0001-01-01T00:00:00Z"},"calm":{"claude/5h/2026-11-20T11:00:00Z":"2026-11-20T10:00:00Z"}}`))
	s := Compute(exampleInput(), DefaultConfig())
	f.Fuzz(func(t *testing.T, b []byte) {
		var mem NoticeMemory
		if json.Unmarshal(b, &mem) != nil {
			return
		}
		cfg := DefaultConfig()
		cfg.NotifyReset = true
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
	})
}
