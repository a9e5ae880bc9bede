//go:build darwin

package quota

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strings"
)

// readKeychain uses /usr/bin/security, which users have already allowed (a
// new binary would prompt).
func readKeychain(ctx context.Context, service string) ([]byte, error) {
	account := os.Getenv("USER")
	if u, err := user.Current(); account == "" && err == nil {
		account = u.Username
	}
	out, err := exec.CommandContext(ctx, "/usr/bin/security", "find-generic-password", "-a", account, "-s", service, "-w").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 44 { // errSecItemNotFound
			return nil, errNoKeychainItem
		}
		// The error names the exit status only, never the output.
		return nil, fmt.Errorf("quota: read Keychain item %q: %v", service, err)
	}
	return []byte(strings.TrimSpace(string(out))), nil
}
