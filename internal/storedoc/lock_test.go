package storedoc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A writer waits for the lock up to LockWait instead of failing at once.
func TestLockWaitsForRelease(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lessons.json")
	held, err := LockWait(t.Context(), p, -1)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { held.Unlock() })
	lk, err := LockWait(context.Background(), p, 5*time.Second)
	if err != nil {
		t.Fatalf("LockWait = %v, want the lock once released", err)
	}
	lk.Unlock()
}

// Discard removes the sidecar only when its lock created it, and a waiter
// that locked the removed file retries on the new one.
func TestDiscardRemovesOnlyACreatedSidecar(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lessons.json")
	lk, err := LockWait(t.Context(), p, -1)
	if err != nil {
		t.Fatal(err)
	}
	lk.Discard()
	if _, err := os.Stat(p + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("created sidecar left behind: %v", err)
	}
	if err := os.WriteFile(p+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	lk, err = LockWait(t.Context(), p, -1)
	if err != nil {
		t.Fatal(err)
	}
	lk.Discard()
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Fatalf("pre-existing sidecar removed: %v", err)
	}
	// one holder discards while another waits: the waiter gets a lock on a
	// sidecar that exists, never on the removed file
	os.Remove(p + ".lock")
	first, err := LockWait(t.Context(), p, -1)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(30*time.Millisecond, func() { first.Discard() })
	second, err := LockWait(context.Background(), p, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Unlock()
	if _, err := LockWait(t.Context(), p, -1); !errors.Is(err, ErrLocked) {
		t.Fatalf("third Lock = %v, want ErrLocked while the waiter holds it", err)
	}
}
