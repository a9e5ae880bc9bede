package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/agentrunway/runway"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
)

// consoleProcesses is how many processes share this one's console, 0 when
// it has none.
// detachedEnv marks the tray process started without a console.
const detachedEnv = "RUNWAY_TRAY_DETACHED"

func consoleProcesses() int {
	var pids [8]uint32
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	return int(n)
}

// detachTray leaves the console as detachFor decides (see detach.go). It
// returns started when another process now runs the tray and this one
// should end.
func (c *cli) detachTray(foreground bool) (started bool, err error) {
	action := detachFor(runtime.GOOS, consoleProcesses(), foreground || c.getenv(detachedEnv) == "1")
	if action == stayAttached {
		return false, nil
	}
	log, path, err := openTrayLog(c.getenv)
	if err != nil {
		return false, err
	}
	if action == freeConsole {
		procFreeConsole.Call()
		// The console's handles are gone: what the tray has to say goes
		// to its log.
		c.stdout, c.stderr, c.p = log, log, printer{log}
		return false, nil
	}
	defer log.Close()
	exe, err := os.Executable()
	if err != nil {
		return false, fmt.Errorf("tray: starting without the terminal: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), detachedEnv+"=1")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
	if err := cmd.Start(); err != nil {
		return false, errorWithHint(fmt.Errorf("tray: starting without the terminal: %w", err),
			"run \"runway tray --foreground\" to keep it in this terminal")
	}
	fmt.Fprintf(c.stdout, "runway tray runs in the background (pid %d); it logs to %s. Quit it from its menu.\n", cmd.Process.Pid, path)
	cmd.Process.Release()
	return true, nil
}

// openTrayLog opens the detached tray's log in the state folder
// (%LOCALAPPDATA%\runway\tray.log), appending.
func openTrayLog(getenv func(string) string) (*os.File, string, error) {
	dir := runway.StateDir(getenv)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("tray: its log: %w", err)
	}
	path := filepath.Join(dir, "tray.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("tray: its log: %w", err)
	}
	return f, path, nil
}
