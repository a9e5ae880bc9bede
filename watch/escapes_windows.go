package watch

import (
	"os"

	"golang.org/x/sys/windows"
)

// enableEscapes turns on the console's VT processing, without which it
// prints the view's escapes as text.
func enableEscapes(out *os.File) (restore func(), err error) {
	h := windows.Handle(out.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return nil, err
	}
	if err := windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING); err != nil {
		return nil, err
	}
	return func() { windows.SetConsoleMode(h, mode) }, nil
}
