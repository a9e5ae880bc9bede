//go:build !darwin

package quota

import "context"

// readKeychain: only macOS keeps Claude Code's login in a keychain.
func readKeychain(context.Context, string) ([]byte, error) { return nil, errNoKeychain }
