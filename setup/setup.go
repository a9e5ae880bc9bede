// Package setup makes each Claude Code settings.json run `runway statusline`
// (chaining one already there, a backup beside) and undoes it: the one place
// runway writes into an agent's folder.
package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/selfexe"
)

// BackupSuffix names the copy of settings.json kept beside it.
const BackupSuffix = ".runway-backup"

// maxSettings bounds a settings.json read (docs/formats.md, "Limits").
const maxSettings = 1 << 20

// Program is the word a statusLine command names runway by, and why:
// "runway" on PATH survives upgrades, else this binary's path; a go run
// build is refused, gone before the next call. npm's runway is a Node
// launcher whose start costs several times runway's on every call: the
// command names the binary it runs, whose folder stays across npm updates.
func Program(lookPath func(string) (string, error), exe string) (program, why string, err error) {
	if p, err := lookPath("runway"); err == nil {
		if npmLauncher(p) && npmBinary(exe) {
			return programWord(exe), fmt.Sprintf("runway on PATH (%s) is npm's Node launcher: the command names the binary it runs, which starts without Node", p), nil
		}
		return "runway", fmt.Sprintf("runway is on PATH (%s)", p), nil
	}
	if selfexe.Temporary(exe) {
		return "", "", fmt.Errorf("%s is a temporary build (go run) that is gone before Claude Code's next statusline call; "+
			"install runway (npm install -g, or go install github.com/agentrunway/runway/cmd/runway@latest), then run \"runway setup\"", exe)
	}
	return programWord(exe), fmt.Sprintf("runway is not on PATH: the command names this binary, %s", exe), nil
}

// ClaudeFolders are the existing Claude Code config folders among roots,
// ~/.claude and each ~/.claude-* holding Claude Code's files (a second
// login); a folder reached twice (a symlink) counts once.
func ClaudeFolders(roots []string, home string) []string {
	candidates := slices.Clone(roots)
	if home != "" {
		candidates = append(candidates, filepath.Join(home, ".claude"))
		more, _ := filepath.Glob(filepath.Join(home, ".claude-*"))
		slices.Sort(more)
		for _, d := range more {
			if claudeLike(d) {
				candidates = append(candidates, d)
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range candidates {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		key := d
		if r, err := filepath.EvalSymlinks(d); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out
}

func claudeLike(dir string) bool {
	for _, name := range []string{"settings.json", "projects", ".credentials.json"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// Action is what a Change does to the file.
type Action int

const (
	Keep    Action = iota // nothing to write (done, or refused: see Err)
	Create                // a settings.json where there was none
	Edit                  // a backup, then the edited settings.json
	Restore               // the backup back over settings.json (undo)
	Unwrap                // settings.json without runway, the rest kept (undo, no matching backup)
	Delete                // remove the settings.json setup created (undo)
)

// Change is what setup (or --undo) will do to one settings.json.
type Change struct {
	Settings string // the settings.json
	Action   Action
	Outcome  Outcome
	Old, New string // statusLine's command before and after ("" when none)
	Err      error  // why the file is refused; nothing is written
	Note     string // why nothing changes, or what is left behind

	before   []byte // the file as planned from (nil when absent)
	existed  bool
	mode     fs.FileMode
	after    []byte
	dropBack bool // remove the backup once done (undo)
}

func (c Change) Backup() string { return c.Settings + BackupSuffix }

// Plan is what setup would do to dir's settings.json; it writes nothing.
func Plan(dir, program string) Change {
	c, err := read(dir)
	if err != nil {
		c.Err = err
		return c
	}
	if !c.existed {
		c.Action, c.Outcome = Create, Added
		c.New = program + " statusline"
		c.after = freshSettings(c.New)
		return c
	}
	out, o, old, err := Apply(c.before, program)
	if err != nil {
		c.Err = err
		return c
	}
	c.Outcome, c.Old, c.after = o, old, out
	if o == Unchanged {
		c.New = old
		c.Note = "already runs runway statusline"
		return c
	}
	c.Action = Edit
	c.New = Command(out)
	return c
}

// PlanUndo is what --undo would do: put the backup back when the file is
// exactly what setup made of it, else take runway out and keep the rest
// (changed since, maybe); remove a settings.json setup created.
func PlanUndo(dir, program string) Change {
	c, err := read(dir)
	cur := c.before
	bak, hasBak, _, bakErr := readSettings(c.Backup())
	if err != nil {
		if hasBak || bakErr != nil {
			c.Err = err
		} else {
			c.Note = "left as it is (" + err.Error() + ")"
		}
		return c
	}
	if !c.existed {
		if hasBak || bakErr != nil {
			c.Note = "settings.json is gone; the copy from before setup is left at " + c.Backup()
		} else {
			c.Note = "no settings.json"
		}
		return c
	}
	c.Old = Command(cur)
	written, _, _, ours := parseOurs(c.Old, program)
	switch {
	case bakErr != nil:
		c.Err = fmt.Errorf("backup %s: %w", c.Backup(), bakErr)
		return c
	case hasBak && ours:
		if made, _, _, err := Apply(bak, written); err == nil && bytes.Equal(made, cur) {
			c.Action, c.Outcome, c.after, c.dropBack = Restore, Removed, bak, true
			c.New = Command(bak)
			if c.Old != written+" statusline" {
				c.Outcome = Unchained
			}
			return c
		}
	case !hasBak && ours && bytes.Equal(cur, freshSettings(written+" statusline")):
		c.Action, c.Outcome = Delete, Removed
		return c
	}
	out, o, err := Remove(cur, program)
	if err != nil && !hasBak {
		c.Note = "left as it is (" + err.Error() + ")"
		return c
	}
	if err != nil {
		c.Err = err
		return c
	}
	if o == Unchanged {
		c.Note = "runway is not in its statusLine"
		if hasBak {
			c.Note += "; the copy from before setup is left at " + c.Backup()
		}
		return c
	}
	c.Action, c.Outcome, c.after, c.New = Unwrap, o, out, Command(out)
	if hasBak {
		c.Note = "it changed since setup: runway is taken out and the rest kept; the copy from before setup is left at " + c.Backup()
	}
	return c
}

// read is a Change of dir's settings.json as it is now.
func read(dir string) (Change, error) {
	c := Change{Settings: filepath.Join(dir, "settings.json")}
	var err error
	c.before, c.existed, c.mode, err = readSettings(c.Settings)
	return c, err
}

// ErrChanged: the file is not what the plan was made from.
var ErrChanged = errors.New("it changed while runway was asking; nothing written: run runway setup again")

// Do carries out c if the file is still what c was planned from: Claude Code
// rewrites settings.json on its own, and that edit must not be lost.
func (c Change) Do() error {
	if c.Err != nil || c.Action == Keep {
		return c.Err
	}
	now, existed, _, err := readSettings(c.Settings)
	if err != nil {
		return err
	}
	if existed != c.existed || !bytes.Equal(now, c.before) {
		return ErrChanged
	}
	switch c.Action {
	case Create:
		return atomicfile.WriteMode(c.Settings, c.after, 0o600)
	case Edit:
		if err := atomicfile.WriteMode(c.Backup(), c.before, c.mode); err != nil {
			return fmt.Errorf("writing the backup: %w", err)
		}
		return atomicfile.WriteMode(c.Settings, c.after, c.mode)
	case Restore, Unwrap:
		if err := atomicfile.WriteMode(c.Settings, c.after, c.mode); err != nil {
			return err
		}
		if c.dropBack {
			if err := os.Remove(c.Backup()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("restored, but the backup is left: %w", err)
			}
		}
		return nil
	case Delete:
		return os.Remove(c.Settings)
	}
	return nil
}

// readSettings reads a settings.json (or backup) runway may replace: regular,
// writable, at most 1 MiB. A symlink usually points into dotfiles shared with
// machines without runway, and replacing it would cut it from its target.
func readSettings(path string) (b []byte, existed bool, mode fs.FileMode, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, 0, nil
	}
	if err != nil {
		return nil, false, 0, err
	}
	mode = fi.Mode().Perm()
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return nil, true, mode, fmt.Errorf("it is a symlink to %s: runway does not write through it (a shared dotfiles copy would run runway on machines without it); add the statusLine there yourself", target)
	case !fi.Mode().IsRegular():
		return nil, true, mode, errors.New("it is not a regular file")
	case mode&0o200 == 0:
		return nil, true, mode, fmt.Errorf("it is read-only (%v): someone made it so on purpose; make it writable (chmod u+w) to let runway edit it, or add the statusLine yourself", fi.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, true, mode, err
	}
	defer f.Close()
	b, err = io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return nil, true, mode, err
	}
	if len(b) > maxSettings {
		return nil, true, mode, errors.New("it is over 1 MiB, far more than settings hold: runway does not edit it")
	}
	return b, true, mode, nil
}

func npmLauncher(onPath string) bool {
	target, err := filepath.EvalSymlinks(onPath)
	return err == nil && strings.HasSuffix(target, filepath.Join("@agentrunway", "runway", "bin", "runway.js"))
}

// npmBinary: exe is @agentrunway/runway-<os>-<cpu>/bin/runway.
func npmBinary(exe string) bool {
	dir := filepath.Dir(filepath.Dir(exe))
	return filepath.Base(filepath.Dir(dir)) == "@agentrunway" && strings.HasPrefix(filepath.Base(dir), "runway-") &&
		filepath.Base(filepath.Dir(exe)) == "bin"
}
