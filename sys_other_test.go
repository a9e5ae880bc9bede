//go:build !unix

package runway

import (
	"errors"
	"time"
)

func mkfifo(string) error { return errors.New("no FIFOs here") }

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
