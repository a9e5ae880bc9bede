// Package statedir holds the rules runway's state folder follows, the same
// as for the shared cache in /tmp: the folder is the user's own and no one
// else may write in it, and a file in it is read or written only when it is
// a regular file of the user's, never through a symbolic link. A folder or a
// file that breaks them is refused, with a message that says what to do.
package statedir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUntrusted marks a folder or file runway refuses: another user's, a
// symbolic link, or writable by others and not ours to tighten.
var ErrUntrusted = errors.New("untrusted")

// untrusted is an ErrUntrusted with the reason and the fix.
type untrusted struct{ why, fix string }

func (u *untrusted) Error() string { return u.why + " (" + u.fix + ")" }
func (u *untrusted) Unwrap() error { return ErrUntrusted }

func refuse(fix, format string, a ...any) error {
	return &untrusted{why: fmt.Sprintf(format, a...), fix: fix}
}

const fixFolder = "point RUNWAY_STATE_DIR at a folder you own, or remove it so runway creates it 0700"

// Ensure makes dir ready to hold state: created 0700 when missing; an
// existing folder of the user's that others may write is tightened to
// 0700 (the note says so); another user's folder is refused. A folder that
// is a symbolic link is judged by what it points to.
func Ensure(dir string) (note string, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create state folder: %w", err)
		}
		os.Chmod(dir, 0o700) // whatever the umask
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return judge(dir, fi)
}

// Check says whether an existing dir may be read from, tightening it as
// Ensure does; a missing folder is fine (nothing recorded yet).
func Check(dir string) (note string, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return judge(dir, fi)
}

func judge(dir string, fi fs.FileInfo) (string, error) {
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("state folder %s is not a folder: nothing runway records is kept (move it away, or set RUNWAY_STATE_DIR)", dir)
	case !OwnedByMe(fi):
		return "", refuse(fixFolder, "state folder %s belongs to another user: nothing in it is read or written", dir)
	case OthersCanWrite(fi):
		was := fi.Mode().Perm()
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", refuse(fixFolder, "state folder %s is writable by others (mode %v) and cannot be tightened: %v", dir, was, err)
		}
		return fmt.Sprintf("state folder %s was writable by others (mode %v): tightened to 0700", dir, was), nil
	}
	return "", nil
}

// Open opens a file in the state folder without following a symbolic link
// or blocking on a FIFO, and refuses anything but a regular file of the
// user's: a link planted there could point a write at a private file, a
// file planted there could feed runway someone else's figures.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := beforeOpen(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|NoFollow|NonBlock, perm)
	if err != nil {
		if isLoop(err) {
			return nil, refuse("remove it", "%s is a symbolic link", path)
		}
		if fi, serr := os.Lstat(path); serr == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			// A FIFO without a reader refuses a writer: say what it is.
			err = NotRegular(path, fi)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = trustFile(path, fi)
	}
	if err == nil {
		err = afterOpen(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// trustFile refuses what an open file must not be.
func trustFile(path string, fi fs.FileInfo) error {
	switch {
	case !fi.Mode().IsRegular():
		return NotRegular(path, fi)
	case !OwnedByMe(fi):
		return refuse("remove it", "%s belongs to another user", path)
	}
	return nil
}

// ReadFile reads at most limit bytes of a state file under Open's rules.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, limit)
}

// ReadAll reads an open file to its end, at most limit bytes, into a
// buffer sized from its stat, as os.ReadFile does: io.ReadAll's doubling
// from 512 bytes cost a large file (the remote sessions' store, a 4 MB
// ~/.claude.json) several copies and a heap grown for nothing.
func ReadAll(f *os.File, limit int64) ([]byte, error) {
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = min(fi.Size(), limit) + 1
	}
	b := make([]byte, 0, size)
	r := io.LimitReader(f, limit)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// ReadTail reads the lines of an open file of the given size that start
// after a line break inside its last n bytes: where the read begins past
// the file's start, everything up to the first line break may be a torn
// line, and is left out. whole reports whether the read began at the
// file's start (nothing is left out).
func ReadTail(f *os.File, size, n int64) (b []byte, whole bool, err error) {
	off := max(size-n, 0)
	b = make([]byte, size-off)
	k, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	b = b[:k]
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	return b, off == 0, nil
}

// NotRegular says what stands where a regular file should.
func NotRegular(path string, fi fs.FileInfo) error {
	kind := "not a regular file"
	switch t := fi.Mode().Type(); {
	case t&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case t&fs.ModeDir != 0:
		kind = "a folder"
	case t&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case t&fs.ModeDevice != 0:
		kind = "a device"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s is %s, not a regular file (move it away)", path, kind)
}

// Join is a file's path in the state folder.
func Join(dir, name string) string { return filepath.Join(dir, name) }
