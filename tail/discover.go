package tail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentrunway/runway/burn"
)

// maxDepth bounds the walk below a root's session folder: Claude's
// subagents sit four levels down, Codex's date folders three.
const maxDepth = 8

// candidate is a session file found by discovery.
type candidate struct {
	provider burn.Provider
	root     int // index into the roots of Stats
	info     os.FileInfo
}

// dirEntry is one name a folder lists, with its type as the listing gave it.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// dirKind says which files of a folder are session files.
type dirKind int

const (
	dirRoot     dirKind = iota // a root itself: no session files
	dirClaude                  // under projects/: *.jsonl
	dirSessions                // under sessions/: rollout-*.jsonl
	dirArchived                // under archived_sessions/: *.jsonl
)

// root is what a watched folder holds.
type root struct {
	provider burn.Provider
	index    int
	kind     dirKind
}

func (r root) wants(path string) bool {
	name := filepath.Base(path)
	switch r.kind {
	case dirClaude, dirArchived:
		return strings.HasSuffix(name, ".jsonl")
	case dirSessions:
		return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
	}
	return false
}

// discovery is what one walk of the roots found.
type discovery struct {
	files    map[string]candidate
	dirs     map[string]root
	roots    []RootStats
	warnings []string
	problems []pathProblem                  // folders not read or not followed
	found    func(path string, c candidate) // if set, told of each file as found
	// inside are the real paths of the roots and their session folders:
	// a folder link is followed only when it leads inside one of them.
	inside []string
}

// discover walks every root. Unreadable folders become warnings; symlinked
// folders are followed once (a loop ends at the first repeat) when they
// lead inside a root, and said when they lead outside (a link to / walked
// the whole disk); anything but regular files and folders is ignored.
// found, if not nil, is told of each session file as soon as it is found.
func discover(rs Roots, found func(path string, c candidate)) discovery {
	d := discovery{files: map[string]candidate{}, dirs: map[string]root{}, found: found}
	type sub struct {
		name string
		kind dirKind
	}
	// A root, or its projects/ or sessions/ folder, may itself be a link
	// (to another disk, say): where it leads is inside.
	for _, dirs := range []struct {
		dirs []string
		subs []string
	}{{rs.Claude, []string{"projects"}}, {rs.Codex, []string{"sessions", "archived_sessions"}}} {
		for _, dir := range dirs.dirs {
			for _, p := range append([]string{dir}, dirs.subs...) {
				if p != dir {
					p = filepath.Join(dir, p)
				}
				if resolved, err := filepath.EvalSymlinks(p); err == nil {
					d.inside = append(d.inside, resolved)
				}
			}
		}
	}
	add := func(p burn.Provider, dir string, subs ...sub) {
		r := root{provider: p, index: len(d.roots)}
		st := RootStats{Provider: p, Dir: dir}
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			st.Exists = true
			d.dirs[dir] = r
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.warnings = append(d.warnings, warnf("%s root %s: %v", p, dir, err))
		}
		d.roots = append(d.roots, st)
		if !st.Exists {
			return
		}
		visited := map[string]bool{}
		for _, s := range subs {
			r.kind = s.kind
			d.walk(filepath.Join(dir, s.name), "", r, 0, visited)
		}
		if n := d.roots[r.index].Zst; n > 0 {
			d.warnings = append(d.warnings, warnf("%d compressed rollouts (.jsonl.zst) under %s are not read (not supported yet)", n, dir))
		}
	}
	for _, dir := range rs.Claude {
		add(burn.Claude, dir, sub{"projects", dirClaude})
	}
	for _, dir := range rs.Codex {
		add(burn.Codex, dir, sub{"sessions", dirSessions}, sub{"archived_sessions", dirArchived})
	}
	return d
}

// leadsInside reports whether resolved, a path with every link resolved,
// is inside a root.
func (d *discovery) leadsInside(resolved string) bool {
	for _, in := range d.inside {
		if resolved == in || strings.HasPrefix(resolved, in+string(filepath.Separator)) || in == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// walk reads dir and the folders below it; resolved is dir's path with
// every link resolved ("" when not known yet).
func (d *discovery) walk(dir, resolved string, r root, depth int, visited map[string]bool) {
	if resolved == "" {
		var err error
		if resolved, err = filepath.EvalSymlinks(dir); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				d.problems = append(d.problems, newProblem("read", dir, err))
			}
			return
		}
	}
	if visited[resolved] {
		return
	}
	visited[resolved] = true
	entries, stat, done, err := readDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.problems = append(d.problems, newProblem("read", dir, err))
		}
		return
	}
	defer done()
	d.dirs[dir] = r
	st := &d.roots[r.index]
	for _, e := range entries {
		// dir is clean (a root's folder, joined once) and a name has no
		// separator: Join's cleaning was a tenth of a big tree's walk.
		path := under(dir, e.name)
		mode := e.typ
		var info os.FileInfo
		var subReal string
		if mode&fs.ModeSymlink != 0 {
			if info, err = os.Stat(path); err != nil {
				continue // dangling
			}
			mode = info.Mode().Type()
			if mode.IsDir() {
				if subReal, err = filepath.EvalSymlinks(path); err != nil {
					continue // gone meanwhile
				}
				if !d.leadsInside(subReal) {
					d.problems = append(d.problems, pathProblem{"did not follow the folder link", path + " → " + subReal,
						"it leads outside the log folders (only links inside them are followed: add its target to [roots] in the config to read it)", false})
					continue
				}
			}
		}
		switch {
		case mode.IsDir():
			if subReal == "" {
				// A folder that is not a link is its parent's real path
				// plus its name: only links need resolving (one lstat per
				// path component, on every folder, was most of a scan's
				// system calls).
				subReal = under(resolved, e.name)
			}
			if depth < maxDepth {
				d.walk(path, subReal, r, depth+1, visited)
			}
		case mode.IsRegular():
			if strings.HasSuffix(e.name, ".jsonl.zst") {
				st.Zst++
				continue
			}
			if !r.wants(e.name) {
				continue
			}
			if info == nil {
				if info, err = stat(e.name); err != nil {
					continue // vanished
				}
			}
			c := candidate{provider: r.provider, root: r.index, info: info}
			_, again := d.files[path] // a root named twice
			d.files[path] = c
			if d.found != nil && !again {
				d.found(path, c) // once: a second read would find nothing new
			}
			st.Files++
			if info.ModTime().After(st.NewestMod) {
				st.Newest, st.NewestMod = path, info.ModTime()
			}
		}
	}
}

// under is filepath.Join(dir, name) for a clean dir and a name that is one
// path element.
func under(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) { // the root of a disk
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}
