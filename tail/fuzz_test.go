package tail

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/jsonsafe"
)

// seedLines adds every line of the fixtures under testdata/<dir> to f,
// and each whole file too.
func seedLines(f *testing.F, dir string) {
	filepath.WalkDir(filepath.Join("testdata", dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
		return nil
	})
}

func checkTokens(t *testing.T, ev burn.Event) {
	t.Helper()
	tok := ev.Tokens
	if tok.Input < 0 || tok.Output < 0 || tok.CacheCreation < 0 || tok.CacheRead < 0 {
		t.Fatalf("negative tokens %+v", tok)
	}
	if math.IsNaN(ev.Weighted) || math.IsInf(ev.Weighted, 0) || ev.Weighted < 0 {
		t.Fatalf("weighted %v", ev.Weighted)
	}
	if ev.Key == "" {
		t.Fatalf("event without a key %+v", ev)
	}
}

func checkSample(t *testing.T, s burn.Sample) {
	t.Helper()
	if math.IsNaN(s.UsedPercent) || math.IsInf(s.UsedPercent, 0) || s.UsedPercent < 0 {
		t.Fatalf("percent %v", s.UsedPercent)
	}
	if s.WindowMinutes <= 0 || (s.Window != burn.FiveHour && s.Window != burn.Weekly) {
		t.Fatalf("window %+v", s)
	}
}

// FuzzClaudeLines parses arbitrary bytes as transcript lines.
func FuzzClaudeLines(f *testing.F) {
	seedLines(f, "claude")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, line := range bytes.Split(data, []byte("\n")) {
			claudeTurnEnded(line)
			lineStamp(line)
			if !claudeWants(line) {
				continue
			}
			out, _ := parseClaude(line, "s", "", burn.DefaultCacheReadWeight, nil)
			if out.msg != nil {
				checkTokens(t, out.msg.ev)
			}
			if out.sample != nil {
				checkSample(t, *out.sample)
			}
		}
	})
}

// FuzzCodexLines parses arbitrary bytes as one rollout, line after line,
// so the cumulative totals carry across lines.
func FuzzCodexLines(f *testing.F) {
	seedLines(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mid := range []bool{false, true} {
			th := codexThread{id: "t", haveBase: !mid}
			for _, line := range bytes.Split(data, []byte("\n")) {
				codexTurnEnded(line)
				lineStamp(line)
				if !codexWants(line) {
					continue
				}
				out, _ := parseCodex(line, &th, burn.DefaultCacheReadWeight)
				if out.event != nil {
					checkTokens(t, *out.event)
				}
				for _, s := range out.samples {
					checkSample(t, s)
				}
			}
		}
	})
}

// FuzzLineReader checks the reader against bytes.Split for any buffer
// size and line limit, with a scratch of its own and with one that has
// room to grow into, dirty from an earlier reader (as a probe leaves it):
// the lines, each with the line before it (never a skipped one), the
// offsets of the lines too long, and an offset before a partial last line.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(2), uint8(1))
	f.Add([]byte(strings.Repeat("x", 40)+"\ny\n"), uint8(10), uint8(3))
	f.Add([]byte("a\nbb\n"+strings.Repeat("x", 50)+"\ncc\n\npartial"), uint8(9), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, maxLine, size uint8) {
		for _, sc := range []*scratch{nil, {b: bytes.Repeat([]byte("\n"), 300)}} {
			checkLineReader(t, data, int(maxLine)+1, int(size)+1, sc)
		}
	})
}

func checkLineReader(t *testing.T, data []byte, m, s int, sc *scratch) {
	t.Helper()
	lr := newLineReader(bytes.NewReader(data), sc, 0, -1, m, s)
	var got, prevs [][]byte
	var long []int64
	lr.long = func(off int64) { long = append(long, off) }
	for {
		line, p, _, ok := lr.next()
		if !ok {
			break
		}
		got = append(got, bytes.Clone(line))
		prevs = append(prevs, bytes.Clone(p))
	}
	var want, wantPrevs [][]byte
	var wantLong []int64
	var prev []byte // nil: none, or a skipped line
	parts := bytes.Split(data, []byte("\n"))
	off := int64(0)
	for _, line := range parts[:len(parts)-1] { // the last part has no newline
		if len(line) <= m {
			want, wantPrevs = append(want, line), append(wantPrevs, prev)
			prev = line
		} else {
			wantLong = append(wantLong, off)
			prev = nil
		}
		off += int64(len(line)) + 1
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		// A previous line too long to keep in the buffer may be let go.
		if prevs[i] != nil && (wantPrevs[i] == nil || !bytes.Equal(prevs[i], wantPrevs[i])) {
			t.Fatalf("line %d: previous line %q, want %q", i, prevs[i], wantPrevs[i])
		}
	}
	if !slices.Equal(long, wantLong) {
		t.Fatalf("long lines at %v, want %v", long, wantLong)
	}
	if off := lr.offset(); off != int64(bytes.LastIndexByte(data, '\n')+1) && !lr.skipping {
		t.Fatalf("offset %d", off)
	}
}

// FuzzTornTail cuts a line anywhere and appends it whole after the cut, as
// an agent that died mid-line and ran again writes it: the whole line is
// found wherever the cut is, and nothing found is ever other than a JSON
// object ending the input.
func FuzzTornTail(f *testing.F) {
	seedLines(f, "claude")
	seedLines(f, "codex")
	f.Fuzz(func(t *testing.T, whole []byte) {
		for _, k := range []int{1, len(whole) / 3, len(whole) / 2, len(whole) - 1} {
			if k <= 0 || k >= len(whole) {
				continue
			}
			line := append(whole[:k:k], whole...)
			got := tornTail(line)
			if got != nil && (!bytes.HasSuffix(bytes.TrimRight(line, " \t\r"), got) || !jsonsafe.Valid(got) || got[0] != '{') {
				t.Fatalf("tornTail(%q) = %q: not an object ending the line", line, got)
			}
			if whole[0] == '{' && whole[len(whole)-1] == '}' && jsonsafe.Valid(whole) && !bytes.Equal(got, whole) {
				t.Fatalf("tornTail(%q) = %q, want the whole line", line, got)
			}
		}
	})
}
