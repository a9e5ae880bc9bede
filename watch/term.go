package watch

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/agentrunway/runway/burn"
)

// Run shows the view full-screen on the terminal in and out until q or
// ctrl+c, or until ctx ends; the terminal is restored on return.
func Run(ctx context.Context, in, out *os.File, o Options, snapshots <-chan burn.Snapshot) error {
	restoreOut, err := enableEscapes(out)
	if err != nil {
		return err
	}
	defer restoreOut()
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return err
	}
	defer term.Restore(int(in.Fd()), state)
	// The alternate screen keeps the user's scrollback; the cursor hides.
	io.WriteString(out, "\x1b[?1049h\x1b[?25l")
	defer io.WriteString(out, "\x1b[?25h\x1b[?1049l")

	keys := make(chan []byte)
	// The reader is left blocked on return: closing in under it would race.
	go readKeys(in, keys)
	// No portable resize signal (Windows has none): the size is polled.
	resize := time.NewTicker(250 * time.Millisecond)
	defer resize.Stop()
	m, shown := New(o), ""
	for {
		if w, h, err := term.GetSize(int(out.Fd())); err == nil {
			m.Resize(w, h)
		}
		if f := m.View(); f != shown {
			shown = f
			io.WriteString(out, "\x1b[H"+strings.ReplaceAll(f, "\n", "\x1b[K\r\n")+"\x1b[K\x1b[J")
		}
		select {
		case <-ctx.Done():
			return nil
		case s := <-snapshots:
			m.Show(s)
		case b, ok := <-keys:
			if !ok {
				return nil
			}
			for _, k := range keyNames(b) {
				if !m.Key(k) {
					return nil
				}
			}
		case <-resize.C:
		}
	}
}

func readKeys(in io.Reader, keys chan<- []byte) {
	defer close(keys)
	for {
		b := make([]byte, 64)
		n, err := in.Read(b)
		if n > 0 {
			keys <- b[:n]
		}
		if err != nil {
			return
		}
	}
}

// keyNames are the keys in one read from a raw terminal: an escape
// sequence of its own is one key (shift+tab is ESC [ Z; others are ignored).
func keyNames(b []byte) []string {
	var out []string
	for len(b) > 0 {
		switch {
		case len(b) == 1 && b[0] == 0x1b:
			return append(out, "esc")
		case b[0] == 0x1b:
			if string(b) == "\x1b[Z" {
				out = append(out, "shift+tab")
			}
			return out
		case b[0] == 3:
			out = append(out, "ctrl+c")
		case b[0] == '\t':
			out = append(out, "tab")
		default:
			out = append(out, string(b[0]))
		}
		b = b[1:]
	}
	return out
}
