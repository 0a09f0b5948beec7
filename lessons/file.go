package lessons

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// Load reads the store at path. A missing file is an error that wraps
// os.ErrNotExist; use LoadOrNew to start an empty store instead.
func Load(ctx context.Context, path string) (*Store, error) {
	return LoadWith(ctx, path, Options{})
}

// LoadWith is Load with injected options.
func LoadWith(ctx context.Context, path string, opts Options) (*Store, error) {
	data, f, err := storedoc.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	s, err := ParseWith(path, data, opts)
	if err != nil {
		return nil, err
	}
	s.file = f
	return s, nil
}

// LoadOrNew loads the store at path, or returns an empty store bound to path
// if the file does not exist yet.
func LoadOrNew(ctx context.Context, path string, opts Options) (*Store, error) {
	s, err := LoadWith(ctx, path, opts)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return s, err
	}
	s = New(path, opts)
	s.file = storedoc.NewFile(path)
	return s, nil
}

// LoadLocked takes the store's advisory lock and then loads it (or starts an
// empty store when missing). The lock is held until Close, so a whole
// load-modify-save runs as one writer.
func LoadLocked(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := storedoc.CheckWritable(path); err != nil {
		return nil, err
	}
	lk, err := storedoc.LockWait(ctx, path, lockWait(opts))
	if err != nil {
		return nil, err
	}
	s, err := LoadOrNew(ctx, path, opts)
	if err != nil {
		lk.Discard()
		return nil, err
	}
	s.file.Hold(lk)
	return s, nil
}

// lockWait is the effective Options.LockWait.
func lockWait(opts Options) time.Duration {
	if opts.LockWait == 0 {
		return storedoc.DefaultLockWait
	}
	return opts.LockWait
}

// Discard releases the lock taken by LoadLocked without saving and removes
// the lock sidecar if LoadLocked created it, so an operation that failed
// leaves the directory as it found it. It is safe to call on any store.
func (s *Store) Discard() error { return s.file.Discard() }

// Dirty reports whether Save would change anything: buffered events, a
// store whose file does not exist yet, or bytes that differ from the file
// as loaded.
func (s *Store) Dirty() (bool, error) {
	if len(s.events) > 0 {
		return true, nil
	}
	return s.file.Differs(s.WriteTo)
}

// Close releases the lock taken by LoadLocked. It is safe to call on any
// store.
func (s *Store) Close() error { return s.file.Unlock() }

// Path returns the file the store is bound to ("" for a parsed store).
func (s *Store) Path() string { return s.file.Path() }

// Save writes the store back to the file it was loaded from: lock, stale
// check, atomic write (temp file, fsync, rename, fsync dir), then the
// buffered events are appended to the event log (storedoc.Save).
func (s *Store) Save(ctx context.Context) error {
	if s.file == nil {
		return errors.New("store was not loaded from a file; use SaveAs")
	}
	return s.SaveAs(ctx, s.file.Path())
}

// SaveAs writes the store to path (see Save). Saving to the loaded path runs
// the stale-writer check; saving elsewhere overwrites.
func (s *Store) SaveAs(ctx context.Context, path string) error {
	f, err := storedoc.Save(ctx, s.file, path, lockWait(s.opts), s.WriteTo, s.events)
	s.file = f
	if err != nil {
		return err
	}
	s.events = s.events[:0]
	return nil
}
