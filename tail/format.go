package tail

import (
	"io"
	"time"

	"github.com/agentrunway/runway/burn"
)

// A format is one agent's log format as a followed file holds it: which
// lines matter and what each adds, the state carried between reads (kept
// in the index). file.go only
// reads lines and hands them over.
type format interface {
	// wants is the byte prefilter: only lines that may matter are parsed.
	wants(line []byte) bool
	// parse reads one wanted line of the pass into the file; it reports
	// whether what Usage returns changed.
	parse(line []byte, p *pass) bool
	// sawBefore sees each line the search for a cold read's start reads
	// last (a step before the start, and after it), before begin.
	sawBefore(off int64, line []byte)
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
}

// formatKind is an agent's format as a whole: how a file's state begins,
// and how the events of its files merge by its dedupe rules.
type formatKind struct {
	open func(path string) format
	// merge returns the events of logs (files in path order, each with its
	// login, Options.Account) stamped in, as read from since.
	merge func(logs []format, logins []string, since time.Time, in func(time.Time) bool) []burn.Event
}

// formats are the agents' formats by provider.
var formats = map[burn.Provider]formatKind{
	burn.Claude: {newClaudeLog, mergeClaude},
	burn.Codex:  {newCodexLog, mergeCodex},
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
