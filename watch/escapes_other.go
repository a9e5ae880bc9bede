//go:build !windows

package watch

import "os"

// enableEscapes is a no-op: Unix terminals read escapes as they are.
func enableEscapes(*os.File) (restore func(), err error) { return func() {}, nil }
