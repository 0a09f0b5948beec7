package storedoc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked is returned when another process holds the store's lock.
var ErrLocked = errors.New("store is busy")

// DefaultLockWait is how long a writer waits for another writer to release the store's lock
// when it is given no wait of its own.
const DefaultLockWait = 5 * time.Second

// FileLock is a held advisory lock on a store's NAME.lock sidecar.
type FileLock struct {
	f       *os.File
	path    string
	created bool // this lock created the sidecar
}

// LockWait takes the exclusive advisory lock on path+".lock" (mode 0600),
// retrying for up to wait while another process holds it (wait < 0: do not
// wait). The error after the wait wraps ErrLocked. The sidecar is kept, as
// in darwin-memo (see Discard).
func LockWait(ctx context.Context, path string, wait time.Duration) (*FileLock, error) {
	lp := path + ".lock"
	deadline := time.Now().Add(wait)
	pause := 5 * time.Millisecond
	for {
		lk, busy, err := tryLock(lp)
		if err != nil || !busy {
			return lk, err
		}
		if wait < 0 || !time.Now().Before(deadline) {
			waited := ""
			if wait > 0 {
				waited = fmt.Sprintf(" for %s", wait)
			}
			return nil, fmt.Errorf("%s: another darwin-memo held %s%s; retry the entire operation: %w", path, lp, waited, ErrLocked)
		}
		t := time.NewTimer(min(pause, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("waiting for the lock on %s: %w", path, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// tryLock makes one attempt on the sidecar lp. busy reports that another process holds the
// lock. After locking it checks that lp still names the locked file, so a sidecar removed by
// Discard in the meantime is never trusted.
func tryLock(lp string) (lk *FileLock, busy bool, err error) {
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, false, fmt.Errorf("could not create directory for %s: %w", lp, err)
	}
	created := false
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		created = true
	} else if errors.Is(err, os.ErrExist) {
		f, err = os.OpenFile(lp, os.O_RDWR, 0o600)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // removed between the two opens
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("could not open lock file %s: %w", lp, err)
	}
	busy, err = lockFile(f)
	if err != nil || busy {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("could not lock %s: %w", lp, err)
		}
		return nil, true, nil
	}
	held, herr := f.Stat()
	now, nerr := os.Stat(lp)
	if herr != nil || nerr != nil || !os.SameFile(held, now) {
		unlockFile(f)
		f.Close()
		return nil, true, nil
	}
	return &FileLock{f: f, path: lp, created: created}, false, nil
}

// Unlock releases the lock.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlockFile(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

// Discard releases the lock and, if this lock created the sidecar, removes
// it again, so a command that changed nothing leaves no NAME.lock behind.
// Waiting writers notice the removal (tryLock re-checks the path) and retry.
func (l *FileLock) Discard() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.created {
		os.Remove(l.path) // best effort; removed while still held
	}
	return l.Unlock()
}
