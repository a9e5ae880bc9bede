//go:build !linux

package tail

import (
	"io/fs"
	"os"
	"path/filepath"
)

// readDir lists a folder and returns a stat of its entries by name.
func readDir(dir string) ([]fs.DirEntry, func(name string) (os.FileInfo, error), func(), error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	stat := func(name string) (os.FileInfo, error) { return os.Lstat(filepath.Join(dir, name)) }
	return entries, stat, func() {}, nil
}
