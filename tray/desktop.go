package tray

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// copyLine puts the status line on the clipboard, and returns the menu's
// note ("" when copied). Failing, it tells the desktop the line itself: a
// file handed to an opener may land in an editor with no window.
func copyLine(opts Options, text string) string {
	err := copyText(text)
	if err == nil {
		return ""
	}
	opts.Logf("copy status line: %v", err)
	if opts.Tell != nil {
		if terr := opts.Tell("Status line not copied: no clipboard tool", text+"\n\nInstall wl-clipboard, xclip or xsel to copy it from the menu."); terr != nil {
			opts.Logf("copy status line: telling the desktop: %v", terr)
		}
	}
	return "⚠ Not copied: " + err.Error()
}

// doctorLines is how much of the doctor's report a notification shows.
const doctorLines = 12

// showDoctor shows the doctor's report as a notification (its first lines,
// and where the whole report is saved), and returns the menu's note: "" when
// shown, else where the report is.
func showDoctor(opts Options, report string) string {
	path, werr := writeCache("doctor.txt", report)
	lines := strings.Split(strings.TrimRight(report, "\n"), "\n")
	if len(lines) > doctorLines {
		lines = append(lines[:doctorLines], "…")
	}
	body := strings.Join(lines, "\n") + "\n\nThe whole report: runway doctor in a terminal"
	if werr == nil {
		body += ", or " + path
	}
	if opts.Tell != nil {
		err := opts.Tell("runway doctor", body)
		if err == nil {
			return ""
		}
		opts.Logf("doctor: telling the desktop: %v", err)
	}
	if werr != nil {
		opts.Logf("doctor: %v", werr)
		return "⚠ No notifications to show the doctor: run runway doctor in a terminal"
	}
	return "⚠ Doctor's report: " + path
}

// writeCache writes a private file under the user's cache folder.
func writeCache(name, text string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w", err)
	}
	dir = filepath.Join(dir, "runway")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	return path, nil
}
