package runway

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/otlp"
	"github.com/agentrunway/runway/tail"
)

// withRemote adds the remote sessions' usage up to at; a session the local
// logs have is theirs alone, not counted twice from its OTLP copy.
func withRemote(usage tail.Usage, remote []burn.Event, at time.Time) tail.Usage {
	if len(remote) == 0 {
		return usage
	}
	type sid struct {
		p  burn.Provider
		id string
	}
	local := map[sid]bool{}
	for _, ev := range usage.Events {
		local[sid{ev.Provider, ev.Session}] = true
		if ev.Agent != "" {
			local[sid{ev.Provider, ev.Agent}] = true
		}
	}
	for _, a := range usage.Activity {
		local[sid{a.Provider, a.Session}] = true
	}
	// One copy at the final size.
	events := slices.Grow(slices.Clip(usage.Events), len(remote))
	for _, ev := range remote {
		if !local[sid{ev.Provider, ev.Session}] && !ev.At.After(at) {
			events = append(events, ev)
		}
	}
	usage.Events = events
	return usage
}

// remoteEvents reads what runway serve saved since since. A file it cannot
// read is a warning, and unread when written since since: its sessions
// may be burning.
func (e Env) remoteEvents(since time.Time) ([]burn.Event, []string, []string) {
	events, err := otlp.ReadEvents(e.StateDir, e.Config.CacheReadWeight, since)
	if err != nil {
		return nil, []string{err.Error()}, e.remoteUnread(since)
	}
	return events, nil, nil
}

func (e Env) remoteUnread(since time.Time) []string {
	path := filepath.Join(e.StateDir, otlp.StoreName)
	if fi, err := os.Stat(path); err != nil || fi.ModTime().Before(since) {
		return nil
	}
	return []string{"the remote sessions runway serve saved in " + path}
}

// remoteFile is the saved remote events as last read by an engine that does
// not receive them (a tray beside a runway serve).
type remoteFile struct {
	seen   os.FileInfo
	events []burn.Event
	warn   []string
	unread bool // the file could not be read
}

// read returns the file's events, read again only when it changed.
func (r *remoteFile) read(e Env, since time.Time) ([]burn.Event, []string, []string) {
	fi, err := os.Stat(filepath.Join(e.StateDir, otlp.StoreName))
	if err != nil {
		r.seen, r.events, r.warn, r.unread = nil, nil, nil, false
		return nil, nil, nil
	}
	if r.seen == nil || !os.SameFile(fi, r.seen) || fi.Size() != r.seen.Size() || !fi.ModTime().Equal(r.seen.ModTime()) {
		// All of it: what is kept serves the reads to come as time moves.
		var unread []string
		r.events, r.warn, unread = e.remoteEvents(time.Time{})
		r.unread = len(unread) > 0
		r.seen = fi
	}
	var unread []string
	if r.unread {
		unread = e.remoteUnread(since)
	}
	return r.events, r.warn, unread
}
