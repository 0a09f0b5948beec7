package lessons

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// ErrStale is returned by Save when the file changed since it was loaded.
var ErrStale = errors.New("store changed since load; reload before writing")

// ErrLocked is returned when another process holds the store's lock.
var ErrLocked = errors.New("store is busy; retry the entire operation")

// DefaultPath is where a repository keeps its store.
const DefaultPath = ".darwin-memo/lessons.json"

// fileState remembers what Load read, for the stale-writer check.
type fileState struct {
	path    string
	existed bool
	seed    maphash.Seed // keys sum; chosen when the state is created
	sum     uint64       // maphash of the bytes (change detection, not security)
	size    int64
	lock    *FileLock
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
	lk, err := Lock(path)
	if err != nil {
		return nil, err
	}
	s, err := LoadOrNew(ctx, path, opts)
	if err != nil {
		lk.Unlock()
		return nil, err
	}
	s.file.lock = lk
	return s, nil
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
		lk, err := Lock(path)
		if err != nil {
			return err
		}
		defer lk.Unlock()
	}
	if s.file != nil && s.file.path == path {
		size, sum, err := fileSum(path, s.file.seed)
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
	err := writeFileAtomicFunc(path, 0o644, func(f io.Writer) error {
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
	if len(s.events) > 0 {
		if err := AppendEvents(EventsPath(path), s.events); err != nil {
			return fmt.Errorf("store saved, but the event log could not be written: %w", err)
		}
		s.events = s.events[:0]
	}
	return nil
}

// fileSum streams a file through maphash with seed.
func fileSum(path string, seed maphash.Seed) (int64, uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var h maphash.Hash
	h.SetSeed(seed)
	n, err := io.Copy(&h, f)
	return n, h.Sum64(), err
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, close, rename, then a best-effort fsync of the
// directory. The target is never left half-written.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeFileAtomicFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomicFunc is WriteFileAtomic with the content streamed by write.
func writeFileAtomicFunc(path string, perm os.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create directory for %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("could not create a temporary file next to %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("could not write %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("could not set mode of %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("could not fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("could not close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("could not move %s over %s: %w", tmp, path, err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort
		d.Close()
	}
	return nil
}

// FileLock is a held advisory lock on a store's NAME.lock sidecar.
type FileLock struct {
	f *os.File
}

// Lock takes the exclusive, non-blocking advisory lock on path+".lock"
// (mode 0600). The sidecar is never deleted, as in darwin-memo.
func Lock(path string) (*FileLock, error) {
	lp := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return nil, fmt.Errorf("could not create directory for %s: %w", lp, err)
	}
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("could not open lock file %s: %w", lp, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is busy (another darwin-memo holds %s); retry the entire operation: %w", path, lp, ErrLocked)
		}
		return nil, fmt.Errorf("could not lock %s: %w", lp, err)
	}
	return &FileLock{f: f}, nil
}

// Unlock releases the lock.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return err
}

// EventsPath is the event log next to a store: lessons.json becomes
// lessons.events.jsonl.
func EventsPath(store string) string {
	ext := filepath.Ext(store)
	return strings.TrimSuffix(store, ext) + ".events.jsonl"
}

func sortStrings(s []string) { sort.Strings(s) }
