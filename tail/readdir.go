package tail

import (
	"os"
	"path/filepath"
)

// readDir lists a folder and returns a stat of its entries by name.
func readDir(dir string) ([]dirEntry, func(name string) (os.FileInfo, error), error) {
	list, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	entries := make([]dirEntry, len(list))
	for i, e := range list {
		entries[i] = dirEntry{name: e.Name(), typ: e.Type()}
	}
	stat := func(name string) (os.FileInfo, error) { return os.Lstat(filepath.Join(dir, name)) }
	return entries, stat, nil
}
