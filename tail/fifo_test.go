//go:build unix

package tail

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO named like a session file is never opened: opening it would block.
func TestFIFOIsSkipped(t *testing.T) {
	tr := newTree(t)
	fifo := filepath.Join(filepath.Dir(tr.claudeFile(sid)), "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	tl := New(Options{Roots: tr.roots()})
	tl.Scan(time.Now())
	// A FIFO that took a tracked file's place after the scan.
	tl.refreshPath(fifo, time.Now())
	if s := tl.Stats(); s.Roots[0].Files != 0 || s.BytesRead != 0 {
		t.Errorf("stats %+v", s)
	}
	if _, err := openRegular(fifo); err == nil {
		t.Error("opened a FIFO")
	}
}
