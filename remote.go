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

// withRemote adds to what the local logs say the remote sessions' usage
// (OpenTelemetry received by runway serve) up to at. A session the local
// logs have is theirs alone: its OTLP copy is the same usage and is not
// counted twice.
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
	// One copy at the final size: appending 100,000 remote events to the
	// local ones one by one moved them over and over.
	events := slices.Grow(slices.Clip(usage.Events), len(remote))
	for _, ev := range remote {
		if !local[sid{ev.Provider, ev.Session}] && !ev.At.After(at) {
			events = append(events, ev)
		}
	}
	usage.Events = events
	return usage
}

// remoteEvents reads what runway serve saved at or after since (older
// events are skipped unread); a damaged file is a warning, and what the
// gate cannot see when it was written since (remoteUnread).
func (e Env) remoteEvents(since time.Time) ([]burn.Event, []string, []string) {
	events, err := otlp.ReadEvents(e.StateDir, e.Config.CacheReadWeight, since)
	if err != nil {
		return nil, []string{err.Error()}, e.remoteUnread(since)
	}
	return events, nil, nil
}

// remoteUnread names the remote sessions' file when runway had to leave it
// (damaged, or too big to read) and runway serve wrote it since since: the
// sessions it holds may be burning, and the gate cannot tell. An older one
// holds nothing inside the lookback.
func (e Env) remoteUnread(since time.Time) []string {
	path := filepath.Join(e.StateDir, otlp.StoreName)
	fi, err := os.Stat(path)
	if err != nil || fi.ModTime().Before(since) {
		return nil
	}
	return []string{"the remote sessions runway serve saved in " + path}
}

// remoteFile is the saved remote events as last read by an engine that
// does not receive them itself (a tray beside a runway serve).
type remoteFile struct {
	seen   os.FileInfo
	events []burn.Event
	warn   []string
	unread bool // the file could not be read
}

// read returns the file's events, reading it again only when it changed,
// and what the gate cannot see (Env.remoteUnread) as of since.
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
	if r.unread && !r.seen.ModTime().Before(since) {
		unread = []string{"the remote sessions runway serve saved in " + filepath.Join(e.StateDir, otlp.StoreName)}
	}
	return r.events, r.warn, unread
}
