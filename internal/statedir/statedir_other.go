//go:build !unix

package statedir

import (
	"io/fs"
	"os"
)

// OwnedByMe: a user's profile folders are their own on Windows.
func OwnedByMe(fs.FileInfo) bool { return true }

// OthersCanWrite: Windows permission bits are synthesized, not real.
func OthersCanWrite(fs.FileInfo) bool { return false }

const (
	// NoFollow: Windows has no O_NOFOLLOW; Open's beforeOpen and afterOpen
	// stand in for it.
	NoFollow = 0
	// NonBlock: a Windows named pipe lives under \\.\pipe\, never in a
	// folder runway reads.
	NonBlock = 0
)

func isLoop(error) bool { return false }

// beforeOpen stands in for O_NOFOLLOW: a symbolic link or junction (a
// reparse point) in the file's place is refused.
func beforeOpen(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return refuse("remove it", "%s is a symbolic link", path)
	}
	return nil
}

// afterOpen: the file opened is the one looked at, not a link swapped in
// between.
func afterOpen(path string, opened fs.FileInfo) error {
	fi, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, opened) {
		return refuse("remove it", "%s changed while it was opened", path)
	}
	return nil
}
