package tail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/agentrunway/runway/burn"
)

// maxDepth bounds the walk below a session folder (Claude's subagents sit
// four levels down, Codex's date folders three).
const maxDepth = 8

// candidate is a session file found by discovery.
type candidate struct {
	provider burn.Provider
	root     int // index into the roots of Stats
	info     os.FileInfo
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
	mu       sync.Mutex // guards the fields below while folders are walked at once
	files    map[string]candidate
	dirs     map[string]root
	roots    []RootStats
	warnings []string
	problems []pathProblem  // folders not read or not followed
	inside   []string       // real paths of the roots and session folders: links may lead there
	visited  map[visit]bool // each root's folders by real path: a loop of links ends
	spare    chan struct{}  // a token for each goroutine that may walk beside the caller
	wg       sync.WaitGroup
}

type visit struct {
	root     int
	resolved string
}

// walkers is how many folders are walked at once: a walk is system calls,
// which the kernel answers on every core (BenchmarkDiscover).
func walkers() int { return min(runtime.GOMAXPROCS(0), 4) }

// discover walks every root. Unreadable folders become warnings; folder
// links are followed once when they lead inside a root, and said when they
// lead outside (a link to / walked the whole disk); anything but regular
// files and folders is ignored.
func discover(rs Roots) *discovery {
	d := &discovery{files: map[string]candidate{}, dirs: map[string]root{},
		visited: map[visit]bool{}, spare: make(chan struct{}, walkers()-1)}
	type sub struct {
		name string
		kind dirKind
	}
	// A root or its session folder may itself be a link: where it leads is inside.
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
		st := RootStats{Provider: p, Dir: dir}
		info, err := os.Stat(dir)
		st.Exists = err == nil && info.IsDir()
		d.mu.Lock() // the roots before this one may still be walked
		r := root{provider: p, index: len(d.roots)}
		if st.Exists {
			d.dirs[dir] = r
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.warnings = append(d.warnings, warnf("%s root %s: %v", p, dir, err))
		}
		d.roots = append(d.roots, st)
		d.mu.Unlock()
		if !st.Exists {
			return
		}
		for _, s := range subs {
			r.kind = s.kind
			d.walk(filepath.Join(dir, s.name), "", r, 0)
		}
	}
	for _, dir := range rs.Claude {
		add(burn.Claude, dir, sub{"projects", dirClaude})
	}
	for _, dir := range rs.Codex {
		add(burn.Codex, dir, sub{"sessions", dirSessions}, sub{"archived_sessions", dirArchived})
	}
	d.wg.Wait()
	// Folders were walked in any order: problems are said in one.
	slices.SortStableFunc(d.problems, func(a, b pathProblem) int { return strings.Compare(a.path, b.path) })
	for _, st := range d.roots {
		if st.Zst > 0 {
			d.warnings = append(d.warnings, warnf("%d compressed rollouts (.jsonl.zst) under %s are not read (not supported yet)", st.Zst, st.Dir))
		}
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

// walk reads dir and the folders below it (resolved: dir's real path, ""
// when not known yet), handing a folder to a spare goroutine if there is one.
func (d *discovery) walk(dir, resolved string, r root, depth int) {
	for _, s := range d.walkDir(dir, resolved, r, depth) {
		select {
		case d.spare <- struct{}{}:
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				d.walk(s.path, s.resolved, r, depth+1)
				<-d.spare
			}()
		default:
			d.walk(s.path, s.resolved, r, depth+1)
		}
	}
}

// subdir is a folder found below another, to walk next.
type subdir struct{ path, resolved string }

// walkDir reads one folder: its session files are added, its folders
// returned.
func (d *discovery) walkDir(dir, resolved string, r root, depth int) []subdir {
	resolved, first := d.firstVisit(dir, resolved, r)
	if !first {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.problem(newProblem("read", dir, err))
		}
		return nil
	}
	f := d.gather(dir, resolved, r, depth, entries)
	d.record(dir, r, f)
	return f.subs
}

// firstVisit resolves dir's links (unless known) and says whether this
// root has not walked that real folder yet.
func (d *discovery) firstVisit(dir, resolved string, r root) (string, bool) {
	if resolved == "" {
		var err error
		if resolved, err = filepath.EvalSymlinks(dir); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				d.problem(newProblem("read", dir, err))
			}
			return "", false
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v := visit{r.index, resolved}
	if d.visited[v] {
		return resolved, false
	}
	d.visited[v] = true
	return resolved, true
}

// foundFile is a session file the walk found.
type foundFile struct {
	path string
	c    candidate
}

// folder is what one folder holds, gathered without the lock.
type folder struct {
	files    []foundFile
	subs     []subdir
	problems []pathProblem
	zst      int
}

// gather sorts a folder's entries into session files, folders to walk and
// links it will not follow.
func (d *discovery) gather(dir, resolved string, r root, depth int, entries []os.DirEntry) folder {
	// Sized for a folder of session files: grown by appends, it was a
	// fifth of a walk's allocations.
	f := folder{files: make([]foundFile, 0, len(entries))}
	for _, e := range entries {
		path := under(dir, e.Name())
		mode := e.Type()
		var info os.FileInfo
		var subReal string
		if mode&fs.ModeSymlink != 0 {
			var err error
			if info, err = os.Stat(path); err != nil {
				// A dangling link hides nothing; one runway may not follow
				// may hide a session that burns.
				if errors.Is(err, fs.ErrPermission) {
					f.problems = append(f.problems, newProblem("read", path, err))
				}
				continue
			}
			mode = info.Mode().Type()
			if mode.IsDir() {
				if subReal, err = filepath.EvalSymlinks(path); err != nil {
					continue // gone meanwhile
				}
				if !d.leadsInside(subReal) {
					f.problems = append(f.problems, pathProblem{"did not follow the folder link", path + " → " + subReal,
						"it leads outside the log folders (only links inside them are followed: add its target to [roots] in the config to read it)", false})
					continue
				}
			}
		}
		switch {
		case mode.IsDir():
			if subReal == "" {
				// Not a link: its parent's real path plus its name (an
				// lstat per path component was most of a scan's calls).
				subReal = under(resolved, e.Name())
			}
			if depth < maxDepth {
				f.subs = append(f.subs, subdir{path, subReal})
			}
		case mode.IsRegular():
			if strings.HasSuffix(e.Name(), ".jsonl.zst") {
				f.zst++
				continue
			}
			if !r.wants(e.Name()) {
				continue
			}
			if info == nil {
				var err error
				if info, err = e.Info(); err != nil {
					continue // vanished
				}
			}
			f.files = append(f.files, foundFile{path, candidate{provider: r.provider, root: r.index, info: info}})
		}
	}
	return f
}

// record adds a gathered folder to the discovery under the lock.
func (d *discovery) record(dir string, r root, f folder) {
	d.mu.Lock()
	d.dirs[dir] = r
	d.problems = append(d.problems, f.problems...)
	st := &d.roots[r.index]
	st.Zst += f.zst
	for _, ff := range f.files {
		d.files[ff.path] = ff.c
		st.Files++
		// The newest file of a root; of two written at once, the first by name.
		mod := ff.c.info.ModTime()
		if mod.After(st.NewestMod) || mod.Equal(st.NewestMod) && st.Newest != "" && ff.path < st.Newest {
			st.Newest, st.NewestMod = ff.path, mod
		}
	}
	d.mu.Unlock()
}

func (d *discovery) problem(p pathProblem) {
	d.mu.Lock()
	d.problems = append(d.problems, p)
	d.mu.Unlock()
}

// under is filepath.Join(dir, name) for a clean dir and a one-element name,
// without Join's cleaning (a tenth of a big tree's walk).
func under(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) { // the root of a disk
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}
