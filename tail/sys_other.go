//go:build !unix

package tail

import "os"

// fileIDsKnown: Windows gives a file's identity only to a handle opened on
// it, which would cost a stat-only pass its speed; no index is kept there.
const fileIDsKnown = false

func fileIDOf(os.FileInfo) (fileID, bool) { return fileID{}, false }

// openRegular opens a file for reading.
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return checkRegular(f)
}
