// Package quietterm keeps Bubble Tea's package init from querying the
// terminal. That init asks the terminal for its background colour (OSC 11,
// then a cursor report) whenever stdout is a terminal, for every command,
// and waits for the answer: a round trip over SSH on each `runway now`,
// five seconds in a terminal that does not answer, and the answer may be
// read from what the user typed ahead. No runway command needs it: the
// live view makes its own renderer once it owns the terminal.
//
// TERM=dumb is the one thing that init heeds. This package sets it in its
// own init, which Go runs before Bubble Tea's: packages are initialised in
// the order of their import paths once their imports are (the Go
// specification, "Package initialization"), and this one imports only os
// and sorts before github.com/charmbracelet. Restore, called from the
// main package's init (after every library's), puts TERM back before any
// command runs or starts a child.
package quietterm

import "os"

var term, hadTerm = os.LookupEnv("TERM")

func init() {
	os.Setenv("TERM", "dumb")
}

// Restore sets TERM back to what the process was started with.
func Restore() {
	if hadTerm {
		os.Setenv("TERM", term)
	} else {
		os.Unsetenv("TERM")
	}
}
