//go:build !unix

package runway

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
