package quota

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/agentrunway/runway/internal/statedir"
)

// LogMark is the sample log's file as a reader last saw it: which file, its
// size and its time. A reader keeps the mark of what it read and reads again
// when a newer mark says the log changed.
type LogMark struct{ fi os.FileInfo }

// Mark is the log's file as it stands now; the zero mark when it is not
// there (or cannot be looked at).
func (l *Log) Mark() LogMark {
	fi, _ := os.Stat(l.path)
	return LogMark{fi}
}

// ChangedSince says whether the log is there and is not what seen saw:
// another file (Compact renamed a new one into place), another size or
// another time. Any append changes one of them, whether or not a watcher
// said so (it may have failed, or be behind).
func (m LogMark) ChangedSince(seen LogMark) bool {
	if m.fi == nil {
		return false
	}
	return seen.fi == nil || !os.SameFile(m.fi, seen.fi) ||
		m.fi.Size() != seen.fi.Size() || !m.fi.ModTime().Equal(seen.fi.ModTime())
}

// WatchLog calls changed each time the sample log in dir is written or
// replaced (`runway statusline` appends to it from every terminal) until ctx
// ends. It watches the folder, not the file, so the file Compact renames into
// place is still followed. It returns at once with the error when the folder
// cannot be watched: the caller then reads the log at each refresh instead.
// newWatcher makes the watcher (dirwatch.New: the system's).
func WatchLog(ctx context.Context, dir string, newWatcher func() (dirwatch.Watcher, error), changed func()) error {
	if _, err := statedir.Ensure(dir); err != nil {
		return err
	}
	w, err := newWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events():
			if !ok {
				return nil
			}
			if filepath.Base(ev.Name) == LogName {
				changed()
			}
		case _, ok := <-w.Errors():
			if !ok {
				return nil
			}
		}
	}
}
