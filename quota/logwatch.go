package quota

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentrunway/runway/internal/dirwatch"
	"github.com/agentrunway/runway/internal/statedir"
)

// LogMark is the sample log's file as a reader last saw it.
type LogMark struct{ fi os.FileInfo }

// Mark is the log's file now; zero when it is not there.
func (l *Log) Mark() LogMark {
	fi, _ := os.Stat(l.path)
	return LogMark{fi}
}

// ChangedSince: the log is there and another file (Compact's), size or
// time than seen, whatever a watcher said.
func (m LogMark) ChangedSince(seen LogMark) bool {
	if m.fi == nil {
		return false
	}
	return seen.fi == nil || !os.SameFile(m.fi, seen.fi) ||
		m.fi.Size() != seen.fi.Size() || !m.fi.ModTime().Equal(seen.fi.ModTime())
}

// WatchLog calls changed each time the sample log in dir is written or
// replaced, until ctx ends. It watches the folder, so Compact's new file is
// followed; an error at once means the caller must poll instead.
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
