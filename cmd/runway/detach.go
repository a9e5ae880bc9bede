package main

// The tray on Windows and its console.
//
// runway is a console program, so `now`, `statusline` and `doctor` print to
// the terminal they run in, and Claude Code reads the statusline's stdout
// through a pipe. A GUI-subsystem build (-H windowsgui) would start the
// tray without a window but leave every other command without a console:
// cmd.exe does not wait for a GUI program and its output lands mid-prompt.
// So the binary stays a console program and the tray leaves its console
// when it starts:
//
//   - started from Explorer or the Run key at login, Windows made a console
//     for runway alone (it is the only process on it): the tray frees it and
//     the window closes at once (it may flash: the console exists before any
//     of runway's code runs);
//   - started from a terminal, the console is the shell's: freeing it would
//     keep the terminal waiting for nothing and closing the terminal would
//     still end the tray, so the tray starts itself again with no console
//     (DETACHED_PROCESS, a process group of its own), says where it logs,
//     and gives the prompt back;
//   - with no console (a service, output to a pipe or a file), or in the
//     process started detached, or with --foreground, it stays as it is.

// detachedEnv marks the tray process started without a console.
const detachedEnv = "RUNWAY_TRAY_DETACHED"

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

// detachFor decides for a process on goos whose console is shared by
// consoleProcs processes (0: it has none, itself included otherwise);
// stay is set in the process already started detached, or by --foreground.
func detachFor(goos string, consoleProcs int, stay bool) detachAction {
	switch {
	case goos != "windows" || stay || consoleProcs == 0:
		return stayAttached
	case consoleProcs == 1:
		return freeConsole
	}
	return respawnDetached
}
