//go:build !unix

package tail

import "os"

// openRegular opens a file for reading.
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return checkRegular(f)
}
