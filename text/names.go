package text

import (
	"strings"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/printable"
)

// SessionNames names each session by its project folder's base name, adding
// a short id where two of ss share a project, so every surface lists the
// sessions of one repository apart and alike. A session without a project
// is "session" and its short id. A remote session adds "on" and its host.
func SessionNames(ss []burn.SessionStatus) []string {
	names := make([]string, len(ss))
	count := map[string]int{}
	for i, s := range ss {
		names[i] = printable.String(baseName(s.Project))
		count[names[i]+"\x00"+s.Host]++
	}
	// Codex ids begin with a timestamp: threads started within a minute
	// share their first 8 characters, and then their last tell them apart.
	short := map[string]int{}
	for _, s := range ss {
		short[head(s.ID)]++
	}
	for i, s := range ss {
		id := head(s.ID)
		if short[id] > 1 {
			id = s.ID[len(s.ID)-len(id):]
		}
		// A snapshot names what the files said: printable on every surface.
		id = printable.String(id)
		switch {
		case names[i] == "":
			names[i] = "session " + id
		case count[names[i]+"\x00"+s.Host] > 1:
			names[i] += " (" + id + ")"
		}
		if s.Host != "" {
			names[i] += " on " + printable.String(s.Host)
		}
	}
	return names
}

// baseName is the last element of a project path from any OS.
func baseName(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return p
}

func head(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
