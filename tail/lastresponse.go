package tail

import (
	"bytes"
	"time"

	"github.com/agentrunway/runway/internal/jsonsafe"
	"github.com/agentrunway/runway/internal/statedir"
	"github.com/tidwall/gjson"
)

// transcriptTail is how much of a transcript's end LastResponse reads at
// most; it reads firstTail first, and more only when that holds no response.
const (
	transcriptTail = 256 << 10
	firstTail      = 32 << 10
)

// LastResponse is when the newest API response was written to a Claude
// Code transcript, read from its end: the statusline's rate_limits are as
// old as that response. false when there is none to read.
func LastResponse(path string) (time.Time, bool) {
	if path == "" {
		return time.Time{}, false
	}
	f, err := openRegular(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, false
	}
	for _, n := range []int64{firstTail, transcriptTail} {
		b, whole, err := statedir.ReadTail(f, fi.Size(), n)
		if err != nil {
			return time.Time{}, false
		}
		if t, ok := lastResponse(b); ok || whole {
			return t, ok
		}
	}
	return time.Time{}, false
}

// lastResponse is the time of the last "assistant" line a model wrote in b
// (Claude Code's own "<synthetic>" lines carry no rate limits).
func lastResponse(b []byte) (time.Time, bool) {
	for len(b) > 0 {
		i := bytes.LastIndexByte(b, '\n')
		line := b[i+1:]
		b = b[:max(i, 0)]
		if i < 0 {
			b = nil
		}
		if len(line) == 0 || !jsonsafe.Valid(line) {
			continue
		}
		r := gjson.ParseBytes(line)
		if r.Get("type").Str != "assistant" || r.Get("message.model").Str == "<synthetic>" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, r.Get("timestamp").Str); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
