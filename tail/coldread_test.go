package tail

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A file begun inside the lookback is read once from its start, without
// the probes that look for the window's start from the end; a file whose
// stamps go back (its end older than its start) is still searched from
// its end.
func TestColdReadWholeFileInside(t *testing.T) {
	tr := newTree(t)
	path := tr.claudeFile(sid)
	var b strings.Builder
	b.WriteString(`{"type":"summary","summary":"unstamped first line"}` + "\n")
	for sec := 0; b.Len() < 4*boundaryStep; sec += 10 {
		b.WriteString(claudeUser(sec))
		b.WriteString(claudeAssistant(sec+5, "msg_"+stampAt(sec), 100, "end_turn"))
	}
	tr.write(path, b.String())
	now := at("2026-12-01T09:00:00Z").Add(10 * time.Hour)
	os.Chtimes(path, now, now)
	read := func() (int64, Usage) {
		tl := New(Options{Roots: tr.roots(), CacheReadWeight: 0.1, Lookback: 11 * time.Hour})
		if err := tl.Scan(now); err != nil {
			t.Fatal(err)
		}
		return tl.Stats().BytesRead, tl.Usage(time.Time{})
	}
	n, u := read()
	size := int64(b.Len())
	if n < size || n > size+2*probeChunk+markLen+markHead {
		t.Errorf("read %d bytes of a %d-byte file inside the window: want it once, and its ends (and the marks)", n, size)
	}
	if all := coldRead(t, tr.roots()); len(u.Events) == 0 || len(u.Events) != len(all.Events) {
		t.Errorf("%d events, a full read finds %d", len(u.Events), len(all.Events))
	}

	// The same lines, then more stamped before the window: the search
	// from the end starts after them, as it always did.
	var old strings.Builder
	for sec := -3 * 3600; old.Len() < 2*boundaryStep; sec++ {
		old.WriteString(claudeAssistant(sec, "msg_old", 1, "end_turn"))
	}
	tr.append(path, old.String())
	os.Chtimes(path, now, now)
	if n, u := read(); len(u.Events) != 0 || n > int64(old.Len())+4*probeChunk {
		t.Errorf("%d events, %d bytes read, after lines older than the window at the end", len(u.Events), n)
	}
}
