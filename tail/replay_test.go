package tail

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Lines Claude Code writes without a top-level timestamp: the snapshot it
// opens a session with (and writes before each prompt), whose only stamp is
// nested, and the summary of a resumed session.
func claudeSnapshot(at time.Time) string {
	return fmt.Sprintf(`{"type":"file-history-snapshot","messageId":"m%d","snapshot":{"messageId":"m%d","trackedFileBackups":{},"timestamp":"%s"},"isSnapshotUpdate":false}`+"\n",
		at.UnixMilli(), at.UnixMilli(), at.UTC().Format("2006-01-02T15:04:05.000Z"))
}

const claudeSummary = `{"type":"summary","summary":"Fix the flaky test","leafUuid":"0d1e2f30-0000-4000-8000-000000000009"}` + "\n"

// TestUntilReadsANewSession: a new session's transcript opens with a line
// without a top-level stamp; read as of an instant after its responses it
// has them all, as a live read has (it read as empty: the search for the
// last line at or before --at probed the first line, found no stamp there
// and concluded no line was).
func TestUntilReadsANewSession(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	data := claudeSnapshot(at("2026-12-01T09:00:00Z")) + claudeUser(0)
	for i := range 10 {
		data += claudeAssistant(30*i+5, fmt.Sprintf("msg_%d", i), 400, "tool_use") + claudeUser(30*i+6)
	}
	tr.write(path, data)
	end := at("2026-12-01T09:05:00Z")
	os.Chtimes(path, end, end)
	live := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 5 * time.Hour})
	live.Scan(end)
	replay := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 5 * time.Hour, Until: end})
	replay.Scan(end)
	got, want := replay.Usage(end.Add(-5*time.Hour)), live.Usage(end.Add(-5*time.Hour))
	if len(want.Events) != 10 {
		t.Fatalf("live: %d events", len(want.Events))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("as of %v, differs from a live read:\n%s", end, diffUsage(got, want))
	}
}

// replayLine is one line of a transcript and when it reached the disk.
type replayLine struct {
	text    string
	written time.Time
}

// replayTranscript draws a transcript in the shapes a search by stamp can
// trip on: unstamped lines first, between stamped ones and last; a single
// line; a last line without its newline; stamps that repeat; lines of
// hundreds of KB, so files span several probe steps. An unstamped line
// reaches the disk with the stamped line after it (a snapshot right before
// its prompt); unstamped lines at the end, and a line never finished, when
// the file was last written.
func replayTranscript(t *rapid.T, start time.Time) (lines []replayLine, end time.Time) {
	now := start
	var pending []string // unstamped, waiting for the next stamped line
	add := func(text string) {
		for _, p := range pending {
			lines = append(lines, replayLine{p, now})
		}
		pending = nil
		lines = append(lines, replayLine{text, now})
	}
	tick := func() {
		now = now.Add(time.Duration(rapid.IntRange(0, 20000).Draw(t, "ms")) * time.Millisecond)
	}
	for range rapid.IntRange(0, 3).Draw(t, "unstamped first") {
		if rapid.Bool().Draw(t, "summary") {
			pending = append(pending, claudeSummary)
		} else {
			pending = append(pending, claudeSnapshot(now))
		}
	}
	msg := 0
	for range rapid.IntRange(0, 30).Draw(t, "steps") {
		tick()
		switch rapid.IntRange(0, 9).Draw(t, "line") {
		case 0, 1:
			pending = append(pending, claudeSnapshot(now))
		case 2, 3:
			size := rapid.IntRange(0, 2000).Draw(t, "size")
			if rapid.IntRange(0, 5).Draw(t, "tool output") == 0 {
				size = rapid.IntRange(100<<10, 400<<10).Draw(t, "big")
			}
			add(fmt.Sprintf(`{"type":"user","sessionId":"%s","cwd":"%s","message":{"role":"user","content":"%s"},"uuid":"u%d","timestamp":"%s"}`+"\n",
				sid, cwd, strings.Repeat("y", size), len(lines), now.UTC().Format("2006-01-02T15:04:05.000Z")))
		default:
			msg++
			copies := rapid.IntRange(1, 3).Draw(t, "copies")
			out := 0
			for c := range copies {
				if c > 0 {
					now = now.Add(time.Duration(rapid.IntRange(0, 300).Draw(t, "copy ms")) * time.Millisecond)
				}
				out += rapid.IntRange(1, 900).Draw(t, "out")
				stop := "null"
				if c == copies-1 {
					stop = rapid.SampledFrom([]string{"null", `"tool_use"`, `"end_turn"`}).Draw(t, "stop")
				}
				add(fmt.Sprintf(`{"isSidechain":false,"cwd":"%s","sessionId":"%s","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","stop_reason":%s,"usage":{"input_tokens":4,"cache_creation_input_tokens":%d,"cache_read_input_tokens":5000,"output_tokens":%d}},"requestId":"req_%d","type":"assistant","uuid":"a%d","timestamp":"%s"}`+"\n",
					cwd, sid, msg, stop, 100+msg, out, msg, len(lines), now.UTC().Format("2006-01-02T15:04:05.000Z")))
			}
		}
	}
	tick()
	end = now
	for _, p := range pending {
		lines = append(lines, replayLine{p, end})
	}
	if rapid.IntRange(0, 3).Draw(t, "unfinished") == 0 {
		// The writer is inside its last line (or died there).
		text := claudeUser(0)
		lines = append(lines, replayLine{text[:rapid.IntRange(1, len(text)-1).Draw(t, "cut")], end})
	}
	return lines, end
}

// TestUntilEqualsLive: a transcript read as of an instant (runway now --at)
// gives exactly what a Tailer following it as it was written had read at
// that instant, for every shape of file replayTranscript draws, with and
// without a lookback.
func TestUntilEqualsLive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "runway-until-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		start := at("2026-12-01T09:00:00Z")
		lines, end := replayTranscript(rt, start)
		if len(lines) == 0 {
			return
		}
		rel := filepath.Join("projects", "-home-ann-src-my-app", sid+".jsonl")
		full := filepath.Join(dir, "replay", rel)
		os.MkdirAll(filepath.Dir(full), 0o755)
		var all strings.Builder
		for _, l := range lines {
			all.WriteString(l.text)
		}
		os.WriteFile(full, []byte(all.String()), 0o644)
		os.Chtimes(full, end, end)
		livePath := filepath.Join(dir, "live", rel)
		os.MkdirAll(filepath.Dir(livePath), 0o755)

		lookback := time.Duration(0)
		if rapid.Bool().Draw(rt, "lookback") {
			lookback = time.Duration(rapid.IntRange(1, 600).Draw(rt, "lookback s")) * time.Second
		}
		opts := func(root string, until time.Time) Options {
			return Options{Roots: Roots{Claude: []string{filepath.Join(dir, root)}}, CacheReadWeight: 0.1, Lookback: lookback, Until: until}
		}
		follower := New(opts("live", time.Time{}))
		written := 0
		last := start.Add(-time.Second)
		for range rapid.IntRange(1, 6).Draw(rt, "checkpoints") {
			// At a line's stamp (or just before or after it), later than
			// the last checkpoint.
			l := lines[rapid.IntRange(0, len(lines)-1).Draw(rt, "at line")]
			T := l.written.Add(time.Duration(rapid.IntRange(-1, 1).Draw(rt, "ms off")) * time.Millisecond)
			if rapid.IntRange(0, 4).Draw(rt, "after the end") == 0 {
				T = end.Add(time.Minute)
			}
			if !T.After(last) {
				continue
			}
			last = T
			var grown strings.Builder
			for ; written < len(lines) && !lines[written].written.After(T); written++ {
				grown.WriteString(lines[written].text)
			}
			if grown.Len() > 0 {
				h, err := os.OpenFile(livePath, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
				if err != nil {
					rt.Fatal(err)
				}
				h.WriteString(grown.String())
				h.Close()
			}
			if written > 0 {
				os.Chtimes(livePath, T, T)
			}
			since := time.Time{}
			if lookback > 0 {
				since = T.Add(-lookback)
			}
			follower.Scan(T)
			want := follower.Usage(since)
			cold := New(opts("live", time.Time{}))
			cold.Scan(T)
			if c := cold.Usage(since); !sameUsage(c, want) {
				rt.Fatalf("at %v: the follower differs from a cold read of what was written:\n%s", T, diffUsage(want, c))
			}
			replay := New(opts("replay", T))
			replay.Scan(T)
			if got := replay.Usage(since); !sameUsage(got, want) {
				rt.Fatalf("at %v (%d of %d lines written): as of it, differs from live:\n%s", T, written, len(lines), diffUsage(got, want))
			}
		}
	})
}

// sameUsage compares two reads of different folders: their warnings name
// different paths.
func sameUsage(a, b Usage) bool {
	a.Warnings, b.Warnings, a.Unread, b.Unread = nil, nil, nil, nil
	if len(a.Events) == 0 && len(b.Events) == 0 {
		a.Events, b.Events = nil, nil
	}
	if len(a.Activity) == 0 && len(b.Activity) == 0 {
		a.Activity, b.Activity = nil, nil
	}
	if len(a.Samples) == 0 && len(b.Samples) == 0 {
		a.Samples, b.Samples = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// TestStreamedCopiesAcrossTheWindowStart: a response streamed as copies on
// both sides of the lookback's start has one TurnStart however it was read.
// A follower saw its first copy at 1 s (work began at the prompt, 0 s); a
// cold read from 51 s sees only the copy at 60 s (work began at the line
// before it, 1 s): the two disagreed (TestUntilEqualsLive's failfile of
// 2026-12-04, in ms). Work before the window is no read's to know: both
// say the window's start.
func TestStreamedCopiesAcrossTheWindowStart(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	lookback := 10 * time.Second
	opts := Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: lookback}
	first := claudeUser(0) + claudeAssistant(1, "msg_1", 1, "null")
	tr.write(path, first)
	t1 := at(stampAt(1))
	os.Chtimes(path, t1, t1)
	follower := New(opts)
	follower.Scan(t1)

	// The same message and request as the first copy.
	copy2 := claudeAssistant(60, "msg_1", 2, "null")
	tr.write(path, first+copy2)
	end := at(stampAt(61)) // the window starts at 51 s, after the first copy
	os.Chtimes(path, end, end)
	follower.Scan(end)
	cold := New(opts)
	cold.Scan(end)
	since := end.Add(-lookback)
	got, want := follower.Usage(since), cold.Usage(since)
	if len(want.Events) != 1 {
		t.Fatalf("cold read: %+v", want.Events)
	}
	if !sameUsage(got, want) {
		t.Errorf("the follower differs from a cold read:\n%s", diffUsage(got, want))
	}
	if ts := want.Events[0].TurnStart; !ts.Equal(since) {
		t.Errorf("TurnStart %v, want the window's start %v", ts, since)
	}
}
