package otlp

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// FuzzDecode feeds arbitrary bodies through the decoder, the mapping and
// the store: nothing panics, and whatever is kept is a plausible event
// with bounded, printable strings.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"claude_logs.json", "codex_logs.json", "claude_metrics.json"} {
		js, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		sig := uint8(0)
		if strings.Contains(name, "metrics") {
			sig = 1
		}
		f.Add(js, sig, true)
		f.Add(asProto(f, []Signal{Logs, Metrics}[sig], js), sig, false)
	}
	f.Fuzz(func(t *testing.T, body []byte, sig uint8, json bool) {
		signal := []Signal{Logs, Metrics, Traces}[int(sig)%3]
		enc := Protobuf
		if json {
			enc = JSON
		}
		b, err := Decode(signal, enc, body, "fuzz", weight)
		if err != nil {
			return
		}
		s := NewStore(6*time.Hour, weight)
		s.Add(t0, b)
		for _, ev := range s.Events() {
			if ev.Session == "" || ev.Provider == "" || ev.At.IsZero() {
				t.Fatalf("event without identity: %+v", ev)
			}
			if min(ev.Tokens.Input, ev.Tokens.Output, ev.Tokens.CacheRead, ev.Tokens.CacheCreation) < 0 ||
				math.IsNaN(ev.Weighted) || math.IsInf(ev.Weighted, 0) || ev.Weighted < 0 {
				t.Fatalf("implausible counts: %+v", ev)
			}
			for _, s := range []string{ev.Session, ev.Host, ev.Model, ev.Project} {
				if len(s) > maxText || strings.IndexFunc(s, unicode.IsControl) >= 0 {
					t.Fatalf("unbounded or unprintable text %q", s)
				}
			}
		}
		s.Prune(t0.Add(7 * time.Hour))
		if s.Len() != 0 {
			t.Fatalf("%d events outlive the lookback", s.Len())
		}
	})
}
