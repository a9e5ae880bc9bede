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

// cacheName is the shared cache's file (docs/formats.md, "Shared cache");
// maxCache bounds what is read of it (a usage body is ~1 KB).
const (
	cacheName = "statusline-usage-cache.json"
	maxCache  = 256 << 10
)

// DefaultCacheDir is the shared cache's folder.
func DefaultCacheDir() string {
	if runtime.GOOS == "windows" {
		return filepath.Join(os.TempDir(), "claude")
	}
	return "/tmp/claude"
}

// cacheSeen is a content's hash and when it was first seen, so a writer
// that only touches the file does not make an old reading look new.
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

// trust says why a file or folder in the shared /tmp must not be believed,
// or "" when it may: ours, not a link, writable by no one else, and a folder
// or a regular file as wanted.
func (c *ClaudeSources) trust(fi fs.FileInfo, path string, folder bool) string {
	what := path
	if folder {
		what = "folder " + path
	}
	owned := statedir.OwnedByMe
	if c.OwnedByMe != nil {
		owned = c.OwnedByMe
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return what + " is a symbolic link"
	case !owned(fi):
		return what + " belongs to another user"
	case statedir.OthersCanWrite(fi):
		return fmt.Sprintf("%s is writable by others (mode %v)", what, fi.Mode().Perm())
	case folder && !fi.IsDir():
		return path + " is not a folder"
	case !folder && !fi.Mode().IsRegular():
		return path + " is not a regular file"
	}
	return ""
}

// readCache reads the shared cache under docs/formats.md, "Shared cache".
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
	observed := c.firstSeen(seenName, body, mod)
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
// trusted: anyone may plant one in the shared /tmp. Nil and why otherwise.
func (c *ClaudeSources) openCache(dir, path string) (*os.File, fs.FileInfo, SourceState) {
	st := SourceState{Name: NameCache, State: StateMissing, Detail: "no shared cache at " + path}
	dfi, err := os.Lstat(dir)
	if err != nil {
		return nil, nil, st
	}
	if why := c.trust(dfi, dir, true); why != "" {
		st.State, st.Detail = StateUntrusted, "ignored: "+why
		st.Fix = "remove " + dir + " or make it yours with mode 0700"
		return nil, nil, st
	}
	// Never through a link, nor blocking on a FIFO someone put there.
	f, err := os.OpenFile(path, os.O_RDONLY|statedir.NoFollow|statedir.NonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, st
	}
	if err != nil {
		st.State, st.Detail = StateUntrusted, "ignored: cannot open "+path+" safely"
		return nil, nil, st
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		st.State, st.Detail = StateError, fmt.Sprintf("stat %s: %v", path, err)
		return nil, nil, st
	}
	if why := c.trust(fi, path, false); why != "" {
		f.Close()
		st.State, st.Detail, st.Fix = StateUntrusted, "ignored: "+why, "remove "+path
		return nil, nil, st
	}
	st.State, st.Detail = "", ""
	return f, fi, st
}

// firstSeen is when body was first seen: mod, or earlier when the content is
// unchanged. The record is kept in the state file name (see load).
func (c *ClaudeSources) firstSeen(name string, body []byte, mod time.Time) time.Time {
	var seen cacheSeen
	c.load(name, &seen)
	if seen.Hash == contentHash(body) && !seen.ObservedAt.IsZero() && seen.ObservedAt.Before(mod) {
		return seen.ObservedAt
	}
	c.remember(name, body, mod)
	return mod
}

func (c *ClaudeSources) remember(name string, body []byte, at time.Time) {
	c.save(name, cacheSeen{Hash: contentHash(body), ObservedAt: at})
}

func contentHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// writeCache shares a body runway fetched itself: only into a folder that is
// ours (or that we create), atomically, 0600. It says why it did not write.
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
		if why := c.trust(fi, dir, true); why != "" {
			return "not shared: " + why
		}
	}
	path := filepath.Join(dir, cacheName)
	if fi, err := os.Lstat(path); err == nil {
		if why := c.trust(fi, path, false); why != "" {
			return "not shared: " + why
		}
	}
	if err := atomicfile.Write(path, body); err != nil {
		return fmt.Sprintf("cannot write %s: %v", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.ModTime().Before(at) {
		at = fi.ModTime()
	}
	c.remember(seenName, body, at)
	return ""
}
