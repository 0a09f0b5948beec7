//go:build unix && !aix && !solaris

package storedoc

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive non-blocking flock on f; busy reports that
// another process holds it.
func lockFile(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
