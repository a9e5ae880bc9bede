package main

// The tray on Windows and its console: runway stays a console program, so
// that now, statusline and doctor print where they run, and the tray
// leaves its console as detachFor decides.

// detachAction is what the tray does with its console.
type detachAction int

const (
	stayAttached    detachAction = iota // nothing to leave, or asked to stay
	freeConsole                         // a console made for runway alone: drop it
	respawnDetached                     // a terminal's console: start again without one
)

func (a detachAction) String() string {
	return [...]string{"stay attached", "free the console", "start again detached"}[a]
}

// detachFor decides for a process on goos whose console consoleProcs
// processes share (0: none). A console made for runway alone (Explorer, the
// Run key) is freed; a terminal's is the shell's, so the tray starts again
// detached and gives the prompt back. stay: already detached, or --foreground.
func detachFor(goos string, consoleProcs int, stay bool) detachAction {
	switch {
	case goos != "windows" || stay || consoleProcs == 0:
		return stayAttached
	case consoleProcs == 1:
		return freeConsole
	}
	return respawnDetached
}
