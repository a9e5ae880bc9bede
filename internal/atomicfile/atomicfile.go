// Package atomicfile replaces small files so that a reader, in this or
// another runway process, sees the old content or the new, never half.
package atomicfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// Write writes b to a temporary file beside path, private to the user
// (0600), and renames it over path.
func Write(path string, b []byte) error { return WriteMode(path, b, 0o600) }

// WriteMode is Write with the file's permissions: a file runway rewrites for
// someone else (Claude Code's settings.json) keeps the mode it had.
func WriteMode(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	merr := tmp.Chmod(perm)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// WriteJSON writes v's JSON, one line, with Write.
func WriteJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return Write(path, append(b, '\n'))
}
