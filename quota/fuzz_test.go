package quota

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/tidwall/gjson"
)

// seed adds every file matching pattern to the corpus.
func seed(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s", pattern)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkSamples holds for every sample any parser returns.
func checkSamples(t *testing.T, samples []burn.Sample, src burn.Source) {
	t.Helper()
	for _, s := range samples {
		if !validSample(s) || s.Source != src || math.IsNaN(s.UsedPercent) {
			t.Fatalf("invalid sample %+v", s)
		}
		if burn.ClassOf(s.WindowMinutes) != s.Window {
			t.Fatalf("window %s of %d minutes", s.Window, s.WindowMinutes)
		}
	}
}

func FuzzParseStatusline(f *testing.F) {
	seed(f, filepath.Join("testdata", "statusline", "*.json"))
	f.Fuzz(func(t *testing.T, in []byte) {
		st, err := ParseStatusline(in, t0)
		if err != nil {
			return
		}
		checkSamples(t, st.Samples, burn.SourceStatusline)
		if !(st.ContextUsedPercent >= 0 && st.ContextUsedPercent <= 100) {
			t.Fatalf("context used %v%%", st.ContextUsedPercent)
		}
		if len(st.Samples) > 2 {
			t.Fatalf("%d samples", len(st.Samples))
		}
	})
}

func FuzzParseUsage(f *testing.F) {
	seed(f, filepath.Join("testdata", "usage", "*"))
	f.Fuzz(func(t *testing.T, body []byte) {
		samples, err := parseUsage(body, t0, burn.SourceOAuth)
		if err != nil && len(samples) > 0 {
			t.Fatal("samples with an error")
		}
		checkSamples(t, samples, burn.SourceOAuth)
		if len(samples) > 2 {
			t.Fatalf("%d samples", len(samples))
		}
	})
}

func FuzzParseRateLimits(f *testing.F) {
	// The results recorded from the real app-server.
	files, _ := filepath.Glob(filepath.Join("testdata", "appserver", "*.log"))
	for _, p := range files {
		steps, err := loadExchange(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range steps {
			for _, line := range s.out {
				if i := strings.Index(line, `"result":`); i >= 0 && strings.Contains(line, "rateLimits") {
					f.Add([]byte(line[i+len(`"result":`) : len(line)-1]))
				}
			}
		}
	}
	f.Add([]byte(`{"rateLimits":{"primary":{"usedPercent":1e308,"windowDurationMins":-1,"resetsAt":1e300}}}`))
	f.Fuzz(func(t *testing.T, result []byte) {
		samples, err := parseRateLimits(result, t0)
		if err != nil && len(samples) > 0 {
			t.Fatal("samples with an error")
		}
		checkSamples(t, samples, burn.SourceCodexRPC)
		for _, s := range samples {
			if s.Provider != burn.Codex {
				t.Fatalf("provider %s", s.Provider)
			}
		}
	})
}

func FuzzReadLog(f *testing.F) {
	seed(f, filepath.Join("testdata", "log", "*.jsonl"))
	f.Fuzz(func(t *testing.T, log []byte) {
		samples, warns := readSamples(bytes.NewReader(log), time.Time{}, 0)
		for _, s := range samples {
			if !validSample(s) {
				t.Fatalf("invalid sample %+v", s)
			}
		}
		if len(warns) > 1 {
			t.Fatalf("%d warnings", len(warns))
		}
		// Whatever was read survives a write and a read back.
		b, err := encodeSamples(samples)
		if err != nil {
			t.Fatal(err)
		}
		again, warns := readSamples(bytes.NewReader(b), time.Time{}, 0)
		if len(again) != len(samples) || len(warns) != 0 {
			t.Fatalf("round trip: %d → %d samples, %v", len(samples), len(again), warns)
		}
		for i := range again {
			if !sameSampleValue(again[i], samples[i]) {
				t.Fatalf("round trip: %+v → %+v", samples[i], again[i])
			}
		}
		// The fast decoder accepts nothing encoding/json would read
		// differently.
		for _, line := range bytes.Split(log, []byte("\n")) {
			s, ok := decodeSample(bytes.TrimSpace(line))
			if !ok {
				continue
			}
			var std burn.Sample
			if err := json.Unmarshal(bytes.TrimSpace(line), &std); err != nil || !sameSampleValue(s, std) {
				t.Fatalf("%q: decoded %+v, encoding/json %+v (%v)", line, s, std, err)
			}
		}
	})
}

func sameSampleValue(a, b burn.Sample) bool {
	return a.ObservedAt.Equal(b.ObservedAt) && a.ResetsAt.Equal(b.ResetsAt) && a.Provider == b.Provider &&
		a.Window == b.Window && a.WindowMinutes == b.WindowMinutes && a.UsedPercent == b.UsedPercent && a.Source == b.Source
}

// FuzzClaudeJSONKeys: the one walk finds what encoding/json finds (the last
// of a key written twice), and never panics on a torn file.
func FuzzClaudeJSONKeys(f *testing.F) {
	f.Add([]byte(`{"projects":{"/x":{"oauthAccount":{"accountUuid":"nested"}}},"oauthAccount":{"accountUuid":"a-1"},"cachedUsageUtilization":{"fetchedAtMs":1}}`))
	f.Add([]byte(`{"oauthAccount":{"accountUuid":"first"},"oauthAccount":{"accountUuid":"second"}}`))
	f.Add([]byte(`{"oauthAccount":"not an object","cachedUsageUtilization":[1,2]}`))
	f.Add([]byte(`["oauthAccount",{"accountUuid":"x"}]`))
	f.Add([]byte(`{"a":"\"oauthAccount\":{","oauth\u0041ccount":{"accountUuid":"real"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		account, usage := claudeJSONKeys(b)
		var top map[string]json.RawMessage
		if json.Unmarshal(b, &top) != nil || !gjson.ValidBytes(b) {
			return
		}
		if got, want := account.Raw, string(top["oauthAccount"]); got != want {
			t.Fatalf("account %q, encoding/json reads %q", got, want)
		}
		if got, want := usage.Raw, string(top["cachedUsageUtilization"]); got != want {
			t.Fatalf("usage %q, encoding/json reads %q", got, want)
		}
	})
}
