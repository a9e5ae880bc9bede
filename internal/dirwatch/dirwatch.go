// Package dirwatch is the part of a folder watcher runway uses: the
// session-log follower (tail) and the sample log's watch (quota) take a
// Watcher, so a test can stand in for the system's (a watch limit, an
// overflow, or time itself under testing/synctest, where a real inotify
// read would never count as blocked).
package dirwatch

import "github.com/fsnotify/fsnotify"

// Watcher reports changes in the folders added to it.
type Watcher interface {
	Add(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

// New is the system's watcher (inotify, kqueue, ReadDirectoryChangesW).
func New() (Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return system{w}, nil
}

type system struct{ w *fsnotify.Watcher }

func (s system) Add(dir string) error          { return s.w.Add(dir) }
func (s system) Events() <-chan fsnotify.Event { return s.w.Events }
func (s system) Errors() <-chan error          { return s.w.Errors }
func (s system) Close() error                  { return s.w.Close() }
