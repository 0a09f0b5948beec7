package lessons

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"sort"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// ErrStale is returned by Save when the file changed since it was loaded.
var ErrStale = errors.New("store changed since load; reload before writing")

// fileState remembers what Load read, for the stale-writer check.
type fileState struct {
	path    string
	existed bool
	seed    maphash.Seed // keys sum; chosen when the state is created
	sum     uint64       // maphash of the bytes (change detection, not security)
	size    int64
	lock    *storedoc.FileLock
}

// Load reads the store at path. A missing file is an error that wraps
// os.ErrNotExist; use LoadOrNew to start an empty store instead.
func Load(ctx context.Context, path string) (*Store, error) {
	return LoadWith(ctx, path, Options{})
}

// LoadWith is Load with injected options.
func LoadWith(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("store %s not found (create it with `darwin-memo add --store %s ...`): %w", path, path, err)
		}
		return nil, fmt.Errorf("could not read store %s: %w", path, err)
	}
	s, err := ParseWith(path, data, opts)
	if err != nil {
		return nil, err
	}
	seed := maphash.MakeSeed()
	s.file = &fileState{path: path, existed: true, seed: seed, sum: maphash.Bytes(seed, data), size: int64(len(data))}
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
	s.file = &fileState{path: path, seed: maphash.MakeSeed()}
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
	s.file.lock = lk
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
func (s *Store) Discard() error {
	if s.file == nil || s.file.lock == nil {
		return nil
	}
	err := s.file.lock.Discard()
	s.file.lock = nil
	return err
}

// Dirty reports whether Save would change anything: buffered events, a
// store whose file does not exist yet, or bytes that differ from the file
// as loaded.
func (s *Store) Dirty() (bool, error) {
	if len(s.events) > 0 || s.file == nil || !s.file.existed {
		return true, nil
	}
	var h maphash.Hash
	h.SetSeed(s.file.seed)
	n, err := s.WriteTo(&h)
	if err != nil {
		return true, err
	}
	return n != s.file.size || h.Sum64() != s.file.sum, nil
}

// Close releases the lock taken by LoadLocked. It is safe to call on any
// store.
func (s *Store) Close() error {
	if s.file == nil || s.file.lock == nil {
		return nil
	}
	err := s.file.lock.Unlock()
	s.file.lock = nil
	return err
}

// Path returns the file the store is bound to ("" for a parsed store).
func (s *Store) Path() string {
	if s.file == nil {
		return ""
	}
	return s.file.path
}

// Save writes the store back to the file it was loaded from: lock, stale
// check, atomic write (temp file, fsync, rename, fsync dir), then the
// buffered events are appended to the event log.
func (s *Store) Save(ctx context.Context) error {
	if s.file == nil {
		return errors.New("store was not loaded from a file; use SaveAs")
	}
	return s.SaveAs(ctx, s.file.path)
}

// SaveAs writes the store to path (see Save). Saving to the loaded path runs
// the stale-writer check; saving elsewhere overwrites.
func (s *Store) SaveAs(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.file == nil || s.file.lock == nil || s.file.path != path {
		lk, err := storedoc.LockWait(ctx, path, lockWait(s.opts))
		if err != nil {
			return err
		}
		defer lk.Unlock()
	}
	if err := storedoc.CheckWritable(path); err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	if s.file != nil && s.file.path == path {
		size, sum, err := storedoc.FileSum(path, s.file.seed)
		switch {
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("could not re-read %s before writing: %w", path, err)
		case err != nil && s.file.existed:
			return fmt.Errorf("%s was deleted since load; reload before writing: %w", path, ErrStale)
		case err == nil && (!s.file.existed || size != s.file.size || sum != s.file.sum):
			return fmt.Errorf("%s changed since load; reload before writing: %w", path, ErrStale)
		}
	}
	var h maphash.Hash
	if s.file != nil && s.file.path == path {
		h.SetSeed(s.file.seed)
	}
	var size int64
	err := storedoc.WriteFileAtomicFunc(path, 0o644, func(f io.Writer) error {
		var err error
		size, err = s.WriteTo(io.MultiWriter(f, &h))
		return err
	})
	if err != nil {
		return err
	}
	if s.file == nil || s.file.path == path {
		if s.file == nil {
			s.file = &fileState{path: path, seed: h.Seed()}
		}
		s.file.existed = true
		s.file.sum, s.file.size = h.Sum64(), size
	}
	if created {
		storedoc.WriteSideIgnore(path)
	}
	if len(s.events) > 0 {
		if err := AppendEvents(storedoc.EventsPath(path), s.events); err != nil {
			return fmt.Errorf("store saved, but the event log could not be written: %w", err)
		}
		s.events = s.events[:0]
	}
	return nil
}

func sortStrings(s []string) { sort.Strings(s) }
