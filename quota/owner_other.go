//go:build !unix

package quota

import "io/fs"

// ownedByMe: the temporary folder is per user on Windows.
func ownedByMe(fs.FileInfo) bool { return true }

// othersCanWrite: Windows permission bits are synthesized, not real.
func othersCanWrite(fs.FileInfo) bool { return false }

const noFollow = 0

const nonBlock = 0
