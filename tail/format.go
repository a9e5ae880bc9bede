package tail

import (
	"io"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A format is one agent's log format as a followed file holds it: which
// lines matter and what each adds, the state carried between reads (kept
// in the index), and how its events merge with other files'. file.go only
// reads lines and hands them over.
type format interface {
	// wants is the byte prefilter: only lines that may matter are parsed.
	wants(line []byte) bool
	// parse reads one wanted line of the pass into the file; it reports
	// whether what Usage returns changed.
	parse(line []byte, p *pass) bool
	// lookBehind returns what sees the lines a cold read's search for its
	// start passes, and what to call with the start found; nil when none.
	lookBehind() (visit func(off int64, line []byte), found func(start int64))
	// carried is what the lines before a cold read's start told the format,
	// after begin: an index is trusted only where a cold read carries the same.
	carried() string
	// begin prepares the first pass, which starts at start (> 0: mid-file)
	// after a line stamped prevAt (zero: none).
	begin(r io.ReaderAt, sc *scratch, start int64, prevAt time.Time, opts Options)
	// activity says whose activity the file's last line is and whether it
	// ends the agent's turn.
	activity(last []byte) (session string, turnEnded bool)
	// held is how many events the file holds; prune drops those before from.
	held() int
	prune(from time.Time)
	// code writes the state into the index or reads it back, failing c on
	// anything this format could not have written.
	code(c *codec)
	// merge starts the merge of this format's events across files.
	merge() merge
}

// A merge gathers one format's events across files, by that format's
// dedupe rules.
type merge interface {
	// add takes a file's format state and its login (Options.Account);
	// files come in path order.
	add(f format, login string)
	// finish merges what was added and returns how many events it holds.
	finish() int
	// appendEvents appends the merged events stamped in, read from since.
	appendEvents(evs []burn.Event, since time.Time, in func(time.Time) bool) []burn.Event
}

// formats makes each agent's format for a file at path.
var formats = map[burn.Provider]func(path string) format{
	burn.Claude: newClaudeLog,
	burn.Codex:  newCodexLog,
}

// pass is one read of a file, as its format sees each line.
type pass struct {
	f      *file
	weight float64   // of a cache-read token
	until  time.Time // lines stamped after it are ignored (zero: none)
	prevAt time.Time // the stamp of the line before the pass's first
	prev   []byte    // the line before this one in the pass (nil: none)
}

// after reports whether at is past what the read covers.
func (p *pass) after(at time.Time) bool { return !p.until.IsZero() && at.After(p.until) }

// addSample keeps s unless it is past what the read covers; it reports
// whether it was kept.
func (p *pass) addSample(s burn.Sample) bool {
	if p.after(s.ObservedAt) {
		return false
	}
	p.f.samples = append(p.f.samples, s)
	return true
}
