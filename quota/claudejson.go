package quota

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/burn"
)

// maxClaudeJSON bounds the read of ~/.claude.json (a few MB of projects).
const maxClaudeJSON = 64 << 20

// claudeJSONPaths: ~/.claude.json, and <config>/.claude.json under CLAUDE_CONFIG_DIR.
func (c *ClaudeSources) claudeJSONPaths() []string {
	var paths []string
	if c.Home != "" {
		paths = append(paths, filepath.Join(c.Home, ".claude.json"))
	}
	for _, d := range c.ConfigDirs {
		p := filepath.Join(d, ".claude.json")
		if len(paths) == 0 || p != paths[0] {
			paths = append(paths, p)
		}
	}
	return paths
}

// readClaudeJSON reads cachedUsageUtilization observed at its fetchedAtMs:
// the newest among the files, or each login's newest when they are of two.
func (c *ClaudeSources) readClaudeJSON(now time.Time) ([]burn.Sample, SourceState) {
	st := SourceState{Name: NameClaudeJSON, State: StateMissing,
		Detail: "no cachedUsageUtilization in ~/.claude.json (Claude Code writes it when /usage is opened)"}
	var best []burn.Sample
	var byLogin map[string][]burn.Sample
	for _, path := range c.claudeJSONPaths() {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		got := claudeJSONOf(path, fi)
		switch {
		case got.err != "":
			if st.State == StateMissing {
				st.State, st.Detail = StateError, got.err
			}
		case got.found && (st.ObservedAt.IsZero() || got.fetched.After(st.ObservedAt)):
			best = got.samples
			st.ObservedAt = got.fetched
			if got.fetched.After(now) {
				// A clock ahead of ours: observed when first seen, so it ages.
				first := c.firstSeen(jsonSeenName, got.raw, now)
				best = observedAt(got.samples, first)
				st.ObservedAt = first
			}
			byLogin = newestOfLogin(byLogin, best)
			st.State = StateOK
			st.Detail = fmt.Sprintf("%d window(s) fetched by Claude Code at %s", len(got.samples), got.fetched.Format(time.RFC3339))
			if now.Sub(st.ObservedAt) > Fresh {
				st.State = StateStale
			}
		case got.found && !got.fetched.After(now):
			byLogin = newestOfLogin(byLogin, got.samples)
		}
	}
	if len(byLogin) > 1 {
		best = nil
		for _, id := range slices.Sorted(maps.Keys(byLogin)) {
			best = append(best, byLogin[id]...)
		}
	}
	return best, st
}

// newestOfLogin keeps each login's newest samples; those naming no login are
// not kept (beside two logins they could be either's).
func newestOfLogin(byLogin map[string][]burn.Sample, samples []burn.Sample) map[string][]burn.Sample {
	if len(samples) == 0 || samples[0].Account == "" {
		return byLogin
	}
	id := samples[0].Account
	if old, ok := byLogin[id]; ok && !samples[0].ObservedAt.After(old[0].ObservedAt) {
		return byLogin
	}
	if byLogin == nil {
		byLogin = map[string][]burn.Sample{}
	}
	byLogin[id] = samples
	return byLogin
}

type claudeJSON struct {
	stamp   fileStamp
	login   string // the fingerprint of oauthAccount.accountUuid; "" without one
	found   bool
	fetched time.Time
	samples []burn.Sample
	raw     []byte // the cachedUsageUtilization object, for its first-seen record
	err     string
}

// claudeJSONFiles holds each .claude.json's last read for the process: one
// read of the megabytes serves the login and usage lookups of a statusline call.
var claudeJSONFiles struct {
	mu   sync.Mutex
	seen map[string]claudeJSON
}

func claudeJSONOf(path string, fi os.FileInfo) claudeJSON {
	claudeJSONFiles.mu.Lock()
	defer claudeJSONFiles.mu.Unlock()
	if got, ok := claudeJSONFiles.seen[path]; ok && got.stamp == stampOf(fi) {
		return got
	}
	got := readClaudeJSONFile(path, fi)
	if claudeJSONFiles.seen == nil {
		claudeJSONFiles.seen = map[string]claudeJSON{}
	}
	claudeJSONFiles.seen[path] = got
	return got
}

func readClaudeJSONFile(path string, fi os.FileInfo) claudeJSON {
	out := claudeJSON{stamp: stampOf(fi)}
	b, err := readRegular(path, maxClaudeJSON)
	if err != nil {
		out.err = fmt.Sprintf("read %s: %v", path, err)
		return out
	}
	account, u := claudeJSONKeys(b)
	out.login = AccountFingerprint(str(account.Get("accountUuid")))
	if !u.IsObject() {
		return out
	}
	fetched := instant(u.Get("fetchedAtMs"))
	if fetched.IsZero() {
		out.err = path + ": cachedUsageUtilization has no fetchedAtMs: ignored"
		return out
	}
	samples, err := usageSamples(u.Get("utilization"), fetched, burn.SourceOAuthCache)
	if err != nil {
		out.err = fmt.Sprintf("%s: cachedUsageUtilization: %v", path, err)
		return out
	}
	login := out.login
	if id := str(u.Get("accountUuid")); id != "" {
		login = AccountFingerprint(id)
	}
	samples = withAccount(samples, login)
	out.found, out.fetched, out.samples, out.raw = true, fetched, samples, []byte(u.Raw)
	return out
}

// claudeJSONKeys finds both top-level values in one walk past the projects;
// a key written twice counts last, as JSON.parse reads it.
func claudeJSONKeys(b []byte) (account, usage gjson.Result) {
	if len(b) == 0 {
		return
	}
	// In place, without ParseBytes' copy: b is never written, and what is
	// kept of a result is copied.
	gjson.Parse(unsafe.String(&b[0], len(b))).ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "oauthAccount":
			account = value
		case "cachedUsageUtilization":
			usage = value
		}
		return true
	})
	return account, usage
}

// observedAt returns copies of samples observed at t.
func observedAt(samples []burn.Sample, t time.Time) []burn.Sample {
	out := make([]burn.Sample, len(samples))
	for i, s := range samples {
		s.ObservedAt = t.UTC()
		out[i] = s
	}
	return out
}

// withAccount sets the account of samples in place and returns them.
func withAccount(samples []burn.Sample, account string) []burn.Sample {
	for i := range samples {
		samples[i].Account = account
	}
	return samples
}

// Account is the fingerprint of the account logged in in configDir (its
// .claude.json's oauthAccount; ~/.claude.json for ~/.claude), or "".
func Account(configDir, home string) string {
	paths := []string{filepath.Join(configDir, ".claude.json")}
	if home != "" && filepath.Clean(configDir) == filepath.Join(home, ".claude") {
		paths = []string{filepath.Join(home, ".claude.json"), paths[0]}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if id := claudeJSONOf(p, fi).login; id != "" {
			return id
		}
	}
	return ""
}
