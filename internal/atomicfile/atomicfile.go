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
// (0600), and renames it over path. For caches: after a crash path may hold
// the old content, or none.
func Write(path string, b []byte) error { return write(path, b, 0o600, false) }

// WriteDurable is Write for a record runway cannot rebuild (the sample
// log): the content reaches the disk before the rename makes it path's.
func WriteDurable(path string, b []byte) error { return write(path, b, 0o600, true) }

// WriteMode is WriteDurable with the file's permissions: a file runway
// rewrites for someone else (Claude Code's settings.json) keeps the mode it
// had.
func WriteMode(path string, b []byte, perm os.FileMode) error { return write(path, b, perm, true) }

func write(path string, b []byte, perm os.FileMode, durable bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	merr := tmp.Chmod(perm)
	var serr error
	if durable && werr == nil {
		serr = tmp.Sync()
	}
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, serr, cerr); err != nil {
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
