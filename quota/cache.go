package quota

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/agentrunway/runway/burn"
	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
)

// cacheName is the shared cache's file name (docs/formats.md, "Shared cache").
const cacheName = "statusline-usage-cache.json"

// maxCache bounds what is read of the shared cache; a usage body is ~1 KB.
const maxCache = 256 << 10

// DefaultCacheDir is the shared cache's folder.
func DefaultCacheDir() string {
	if runtime.GOOS == "windows" {
		return filepath.Join(os.TempDir(), "claude")
	}
	return "/tmp/claude"
}

// cacheSeen remembers the content of the shared cache and when it was
// first seen, so a writer that only touches the file does not make an old
// reading look new.
type cacheSeen struct {
	Hash       string    `json:"hash"`
	ObservedAt time.Time `json:"observed_at"`
}

func (c *ClaudeSources) cacheDir() string {
	if c.CacheDir != "" {
		return c.CacheDir
	}
	return DefaultCacheDir()
}

func (c *ClaudeSources) owned(fi fs.FileInfo) bool {
	if c.OwnedByMe != nil {
		return c.OwnedByMe(fi)
	}
	return statedir.OwnedByMe(fi)
}

// trust says why a file or folder in the shared /tmp must not be believed,
// or "" when it may: ours, not a symlink, writable by no one else.
func (c *ClaudeSources) trust(fi fs.FileInfo, what string) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return what + " is a symbolic link"
	case !c.owned(fi):
		return what + " belongs to another user"
	case statedir.OthersCanWrite(fi):
		return fmt.Sprintf("%s is writable by others (mode %v)", what, fi.Mode().Perm())
	}
	return ""
}

// readCache reads the shared cache under the rules of docs/formats.md,
// "Shared cache".
func (c *ClaudeSources) readCache(now time.Time) ([]burn.Sample, SourceState) {
	dir := c.cacheDir()
	path := filepath.Join(dir, cacheName)
	f, fi, st := c.openCache(dir, path)
	if f == nil {
		return nil, st
	}
	defer f.Close()
	mod := fi.ModTime()
	if mod.After(now) {
		mod = now // a clock ahead of ours: no younger than now
	}
	if age := now.Sub(mod); age > Fresh {
		st.State = StateStale
		st.Detail = fmt.Sprintf("written %s ago; trusted for %s", age.Round(time.Second), Fresh)
		st.ObservedAt = mod
		return nil, st
	}
	body, err := io.ReadAll(io.LimitReader(f, maxCache+1))
	if err != nil || len(body) > maxCache {
		st.State, st.Detail = StateError, "unreadable or too large: "+path
		return nil, st
	}
	observed := c.firstSeen(body, mod)
	samples, err := parseUsage(body, observed, burn.SourceOAuthCache)
	if err != nil {
		st.State, st.Detail = StateError, fmt.Sprintf("ignored %s: %v", path, err)
		return nil, st
	}
	st.ObservedAt = observed
	if now.Sub(observed) > Fresh {
		st.State = StateStale
		st.Detail = fmt.Sprintf("touched, but its content is unchanged since %s", observed.Format(time.RFC3339))
	} else {
		st.State = StateOK
		st.Detail = fmt.Sprintf("%d window(s)", len(samples))
	}
	return samples, st
}

// openCache opens the shared cache only when its folder and the file are
// the user's own and the file a regular one: it lies in the shared /tmp,
// where anyone may plant one. Nil and the reason otherwise.
func (c *ClaudeSources) openCache(dir, path string) (*os.File, fs.FileInfo, SourceState) {
	st := SourceState{Name: NameCache}
	dfi, err := os.Lstat(dir)
	if err != nil {
		st.State, st.Detail = StateMissing, "no shared cache at "+path
		return nil, nil, st
	}
	if why := c.trust(dfi, "folder "+dir); why != "" || !dfi.IsDir() {
		if why == "" {
			why = dir + " is not a folder"
		}
		st.State, st.Detail = StateUntrusted, "ignored: "+why
		st.Fix = "remove " + dir + " or make it yours with mode 0700"
		return nil, nil, st
	}
	// In the shared /tmp: never through a link or blocking on a FIFO
	// someone put there.
	f, err := os.OpenFile(path, os.O_RDONLY|statedir.NoFollow|statedir.NonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			st.State, st.Detail = StateMissing, "no shared cache at "+path
			return nil, nil, st
		}
		st.State, st.Detail = StateUntrusted, "ignored: cannot open "+path+" safely"
		return nil, nil, st
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		st.State, st.Detail = StateError, fmt.Sprintf("stat %s: %v", path, err)
		return nil, nil, st
	}
	if why := c.trust(fi, path); why != "" || !fi.Mode().IsRegular() {
		f.Close()
		if why == "" {
			why = path + " is not a regular file"
		}
		st.State, st.Detail, st.Fix = StateUntrusted, "ignored: "+why, "remove "+path
		return nil, nil, st
	}
	return f, fi, st
}

// firstSeen is when this content was first seen: the file's time, or an
// earlier one when the content is the same as before. It is remembered in
// the state folder, so every runway process agrees.
func (c *ClaudeSources) firstSeen(body []byte, mod time.Time) time.Time {
	return c.firstSeenIn(seenName, &c.seen, body, mod)
}

// firstSeenIn is firstSeen with the record kept in the state file name (mem
// when there is no state folder).
func (c *ClaudeSources) firstSeenIn(name string, mem *cacheSeen, body []byte, mod time.Time) time.Time {
	h := sha256.Sum256(body)
	hash := hex.EncodeToString(h[:])
	seen := *mem
	if c.StateDir != "" {
		seen = cacheSeen{}
		readJSON(filepath.Join(c.StateDir, name), &seen)
	}
	if seen.Hash == hash && !seen.ObservedAt.IsZero() && seen.ObservedAt.Before(mod) {
		return seen.ObservedAt
	}
	c.rememberIn(name, mem, hash, mod)
	return mod
}

// remember records content and its observation time.
func (c *ClaudeSources) remember(hash string, at time.Time) {
	c.rememberIn(seenName, &c.seen, hash, at)
}

func (c *ClaudeSources) rememberIn(name string, mem *cacheSeen, hash string, at time.Time) {
	*mem = cacheSeen{Hash: hash, ObservedAt: at}
	if c.StateDir == "" {
		return
	}
	if _, err := statedir.Ensure(c.StateDir); err == nil {
		atomicfile.WriteJSON(filepath.Join(c.StateDir, name), *mem)
	}
}

// writeCache shares a body runway fetched itself with the other tools that
// read the cache: only into a folder that is ours (or that we create),
// atomically, 0600. It reports why it did not write, or "".
func (c *ClaudeSources) writeCache(body []byte, at time.Time) string {
	dir := c.cacheDir()
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o700); err != nil {
			return fmt.Sprintf("cannot create %s: %v", dir, err)
		}
		os.Chmod(dir, 0o700) // whatever the umask
	case err != nil:
		return fmt.Sprintf("cannot use %s: %v", dir, err)
	default:
		if why := c.trust(fi, "folder "+dir); why != "" || !fi.IsDir() {
			return "not shared: " + why
		}
	}
	path := filepath.Join(dir, cacheName)
	if fi, err := os.Lstat(path); err == nil {
		if why := c.trust(fi, path); why != "" || !fi.Mode().IsRegular() {
			return "not shared: " + why
		}
	}
	if err := atomicfile.Write(path, body); err != nil {
		return fmt.Sprintf("cannot write %s: %v", path, err)
	}
	h := sha256.Sum256(body)
	if fi, err := os.Stat(path); err == nil && fi.ModTime().Before(at) {
		at = fi.ModTime()
	}
	c.remember(hex.EncodeToString(h[:]), at)
	return ""
}
