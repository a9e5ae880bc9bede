package tail

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// readDir lists a folder and returns a stat of its entries by name. On
// Linux the stat is relative to the open folder (fstatat): a path lookup
// per file from the root was over half of a big tree's walk.
func readDir(dir string) ([]fs.DirEntry, func(name string) (os.FileInfo, error), func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	// In name order, as os.ReadDir gives them: ties (the newest file of a
	// root) are then decided the same way on every run.
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	fd := int(f.Fd())
	stat := func(name string) (os.FileInfo, error) {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: dir + "/" + name, Err: err}
		}
		return &statInfo{name: name, st: st}, nil
	}
	return entries, stat, func() { f.Close() }, nil
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
