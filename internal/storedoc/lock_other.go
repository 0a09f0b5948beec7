//go:build aix || solaris || (!unix && !windows)

package storedoc

import (
	"fmt"
	"os"
	"runtime"
)

// lockFile fails: this platform has no flock or LockFileEx, and writing a
// store without one could lose a concurrent writer's change.
func lockFile(f *os.File) (bool, error) {
	return false, fmt.Errorf("store locking is not supported on %s", runtime.GOOS)
}

func unlockFile(*os.File) {}
