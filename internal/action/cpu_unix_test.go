//go:build unix

package action

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time the process has used, a measure that a busy machine
// does not inflate the way it inflates wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
