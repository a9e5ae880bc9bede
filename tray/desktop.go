package tray

import (
	"fmt"
	"os"
	"path/filepath"
)

// copyOrShow puts text on the clipboard, or opens it as a file where there
// is no clipboard tool, so the user can still copy it by hand.
func copyOrShow(opts Options, text string) {
	if err := copyText(text); err != nil {
		opts.Logf("runway: tray: copy status line: %v; showing it instead", err)
		showText(opts, "status-line.txt", text)
	}
}

// showText writes text to name in runway's cache folder and opens it with the
// desktop's opener.
func showText(opts Options, name, text string) {
	path, err := writeCache(name, text)
	if err == nil {
		err = openPath(path)
	}
	if err != nil {
		opts.Logf("runway: tray: show %s: %v", name, err)
	}
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

// start runs a helper program without waiting for it, reaping it later.
func start(name string, args ...string) error {
	cmd := command(name, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	go cmd.Wait()
	return nil
}
