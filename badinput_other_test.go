//go:build !unix

package runway

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
