// Package selfexe finds the running runway binary for what names it in a
// file that outlives the process (an autostart entry, Claude Code's
// statusLine), and tells a temporary build from an installed one.
package selfexe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the running binary's absolute path, symlinks resolved.
func Path() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding runway's own path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return exe, nil
}

// Temporary says whether exe is a binary `go run` or `go test` built,
// removed when the command ends or the build cache is trimmed: under a
// go-build<digits> folder of the temp folder, or in the build cache
// (since Go 1.24 `go run` keeps its binaries there, as
// <GOCACHE>/<2 hex>/<64 hex>-d/<name>, wherever GOCACHE is).
func Temporary(exe string) bool {
	parts := strings.FieldsFunc(exe, func(r rune) bool { return r == '/' || r == '\\' })
	for i, part := range parts {
		if n, ok := strings.CutPrefix(part, "go-build"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
		if i+2 < len(parts) && len(part) == 2 && isHex(part) {
			if h, ok := strings.CutSuffix(parts[i+1], "-d"); ok && len(h) == 64 && isHex(h) {
				return true
			}
		}
	}
	return false
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}
