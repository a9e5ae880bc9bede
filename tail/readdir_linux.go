package tail

import (
	"encoding/binary"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// direntBufs are getdents buffers: a walk lists hundreds of folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// readDir lists a folder and returns a stat of its entries by name. On
// Linux the folder is opened and listed with raw system calls (os.Open
// registers every folder with the poller and os.ReadDir allocates an entry
// each: a third of an indexed run's walk), and the stat is relative to
// the open folder (fstatat: a path lookup per file from the root was over
// half of a big tree's walk).
func readDir(dir string) ([]dirEntry, func(name string) (os.FileInfo, error), func(), error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, nil, nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	entries, err := listDir(fd)
	if err != nil {
		unix.Close(fd)
		return nil, nil, nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
	}
	stat := func(name string) (os.FileInfo, error) {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: dir + "/" + name, Err: err}
		}
		return &statInfo{name: name, st: st}, nil
	}
	// A file system that does not say an entry's type (DT_UNKNOWN) gets a
	// stat for it, as os.ReadDir would.
	for i, e := range entries {
		if e.typ == unknownType {
			entries[i].typ = 0
			if info, err := stat(e.name); err == nil {
				entries[i].typ = info.Mode().Type()
			}
		}
	}
	return entries, stat, func() { unix.Close(fd) }, nil
}

func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// unknownType marks an entry whose type the listing did not give.
const unknownType = fs.ModeIrregular

// listDir reads every entry of an open folder but "." and "..", in name
// order, as os.ReadDir gives them: ties (the newest file of a root) are
// then decided the same way on every run.
func listDir(fd int) ([]dirEntry, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var entries []dirEntry
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		entries = parseDirents(buf[:n], entries)
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// parseDirents appends the entries of a getdents64 buffer: each record is
// inode (8 bytes), offset (8), record length (2), type (1), then the name
// ending in a NUL.
func parseDirents(b []byte, entries []dirEntry) []dirEntry {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			break // not a record: the rest cannot be trusted
		}
		ino, typ, name := binary.NativeEndian.Uint64(b[0:8]), b[18], b[19:reclen]
		b = b[reclen:]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		if ino == 0 || len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		entries = append(entries, dirEntry{name: string(name), typ: direntType(typ)})
	}
	return entries
}

func direntType(t uint8) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return unknownType
}

// statInfo is an os.FileInfo from fstatat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Sec, s.st.Mtim.Nsec) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) fileID() fileID     { return fileID{dev: uint64(s.st.Dev), ino: uint64(s.st.Ino)} }
func (s *statInfo) changeTime() time.Time {
	return time.Unix(s.st.Ctim.Sec, s.st.Ctim.Nsec)
}

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}
