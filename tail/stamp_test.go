package tail

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// stampByParse is a line's stamp as a full parse reads it, when the line is
// valid JSON with one top-level "timestamp" (with two, which one counts is
// a choice, not a fact).
func stampByParse(line []byte) (at time.Time, ok, defined bool) {
	s := string(line)
	if !gjson.Valid(s) {
		return time.Time{}, false, false
	}
	n := 0
	gjson.Parse(s).ForEach(func(k, _ gjson.Result) bool {
		if k.Str == "timestamp" {
			n++
		}
		return true
	})
	if n > 1 {
		return time.Time{}, false, false
	}
	at, ok = parseStamp(gjson.Get(s, "timestamp").Str)
	return at, ok, true
}

func TestLineStamp(t *testing.T) {
	const ts = `"2026-12-01T06:40:16.063Z"`
	want := at("2026-12-01T06:40:16.063Z")
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"type":"user","uuid":"u","timestamp":` + ts + `}`, true},
		{`{"timestamp":` + ts + `}`, true},
		{`{"type":"user","timestamp":` + ts + "}\r", true},
		{`{"timestamp":` + ts + `,"type":"x"}`, true},
		{`{"type":"x","timestamp":` + ts + `,"uuid":"u"}`, true},
		// Not top-level: a nested object's stamp at the end.
		{`{"type":"x","m":{"timestamp":` + ts + `}}`, false},
		// Inside a string that ends the line.
		{`{"type":"x","m":"a,\"timestamp\":` + strings.ReplaceAll(ts, `"`, `\"`) + `"}`, false},
		{`{"type":"x","m":"a","timestamp":"2026-12-01T06:40:16.063Z\u0022"}`, false},
		{`{"type":"x","timestamp":"not a time"}`, false},
		{`{"type":"x","timestamp":12}`, false},
		{`"timestamp":` + ts + `}`, false},
		{`}`, false},
		{``, false},
	} {
		got, ok := lineStamp([]byte(c.line))
		if ok != c.ok || ok && !got.Equal(want) {
			t.Errorf("lineStamp(%s) = %v %v, want ok=%v", c.line, got, ok, c.ok)
		}
		if pAt, pOK, defined := stampByParse([]byte(c.line)); defined && (pOK != ok || !pAt.Equal(got)) {
			t.Errorf("lineStamp(%s) = %v %v, a full parse says %v %v", c.line, got, ok, pAt, pOK)
		}
	}
}

// FuzzLineStamp: on a valid line with one top-level stamp, the shortcuts
// of lineStamp (Codex's stamp first, Claude's last) read what a full parse
// reads.
func FuzzLineStamp(f *testing.F) {
	seedLines(f, "claude")
	seedLines(f, "codex")
	f.Add([]byte(`{"a":{"timestamp":"2026-12-01T06:40:16Z"},"timestamp":"2026-12-01T06:40:17Z"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := lineStamp(line)
		if want, wantOK, defined := stampByParse(line); defined && (ok != wantOK || !got.Equal(want)) {
			t.Fatalf("lineStamp(%q) = %v %v, a full parse says %v %v", line, got, ok, want, wantOK)
		}
	})
}

// FuzzMembers: on a valid line, what the member shortcuts find is what a
// parse finds: trailingMember the last member of the name (as the
// parsers' ForEach keeps it), firstMember the first (as gjson.Get reads
// it); and claudeWants passes over a line only when parseClaude would
// take nothing from it.
func FuzzMembers(f *testing.F) {
	seedLines(f, "claude")
	seedLines(f, "codex")
	f.Add([]byte(`{"type":"user","type":"assistant","timestamp":"a"}`))
	f.Add([]byte(`{"m":{"type":"x"},"type":"user"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !claudeWants(line) && (bytes.Contains(line, claudeUsageMark) || bytes.Contains(line, claudeQuotaMark)) {
			if out, _ := parseClaude(line, "s", "", 0.1, nil); out.msg != nil || out.sample != nil {
				t.Fatalf("claudeWants(%q) = false, parseClaude takes %+v", line, out)
			}
		}
		s := string(line)
		if !gjson.Valid(s) {
			return
		}
		for _, key := range []string{"timestamp", "type"} {
			var last gjson.Result
			gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
				if k.Str == key {
					last = v
				}
				return true
			})
			if v, ok := trailingMember(line, key); ok && (last.Type != gjson.String || last.Str != string(v)) {
				t.Fatalf("trailingMember(%q, %s) = %q, the last member is %v", line, key, v, last)
			}
			if v, ok := firstMember(line, key); ok {
				if first := gjson.Get(s, key); first.Type != gjson.String || first.Str != string(v) {
					t.Fatalf("firstMember(%q, %s) = %q, gjson.Get says %v", line, key, v, first)
				}
			}
		}
	})
}

func TestMembers(t *testing.T) {
	for _, c := range []struct {
		line, key    string
		first, trail string // "-": not found
	}{
		{`{"type":"user","message":{"type":"x"},"uuid":"u","type":"assistant"}`, "type", "user", "assistant"},
		{`{"message":{"type":"x","content":"a \"type\":\"y\""},"type":"user","uuid":"u"}`, "type", "user", "user"},
		{`{"message":["type",{"type":"x"}],"type" : "user"}`, "type", "user", "-"},
		{`{"a":"x\\","type":"user"}`, "type", "user", "user"},
		{`{"a":"x\"","type":"user"}`, "type", "user", "user"},
		{`{"ty\u0070e":"user","type":"assistant"}`, "type", "-", "assistant"},
		{`{"type":"us\u0065r"}`, "type", "-", "-"},
		{`{"type":1,"uuid":"u"}`, "type", "-", "-"},
		{`{"m":{"type":"x"}}`, "type", "-", "-"},
		{`{"m":"{\"type\":\"x\"}"}`, "type", "-", "-"},
		{`[{"type":"x"}]`, "type", "-", "-"},
	} {
		for _, s := range []struct {
			name string
			fn   func([]byte, string) ([]byte, bool)
			want string
		}{{"firstMember", firstMember, c.first}, {"trailingMember", trailingMember, c.trail}} {
			v, ok := s.fn([]byte(c.line), c.key)
			got := string(v)
			if !ok {
				got = "-"
			}
			if got != s.want {
				t.Errorf("%s(%s, %s) = %q, want %q", s.name, c.line, c.key, got, s.want)
			}
		}
	}
}
