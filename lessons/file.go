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
	"time"
)

// ErrStale is returned by Save when the file changed since it was loaded.
var ErrStale = errors.New("store changed since load; reload before writing")

// ErrLocked is returned when another process holds the store's lock.
var ErrLocked = errors.New("store is busy")

// ErrReadOnly is returned when a command would change a store whose file is
// read-only (no owner write bit), as git and editors respect it.
var ErrReadOnly = errors.New("store is read-only")

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
	if err := CheckWritable(path); err != nil {
		return nil, err
	}
	lk, err := LockWait(ctx, path, lockWait(opts))
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
		return DefaultLockWait
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
		lk, err := LockWait(ctx, path, lockWait(s.opts))
		if err != nil {
			return err
		}
		defer lk.Unlock()
	}
	if err := CheckWritable(path); err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
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
	if created {
		writeSideIgnore(path)
	}
	if len(s.events) > 0 {
		if err := AppendEvents(EventsPath(path), s.events); err != nil {
			return fmt.Errorf("store saved, but the event log could not be written: %w", err)
		}
		s.events = s.events[:0]
	}
	return nil
}

// CheckWritable refuses to change a store whose file exists without its
// owner's write bit. It reads the mode bits rather than asking access(2),
// because root may write any file: a store made read-only (chmod 444) stays
// unchanged whoever runs the command.
func CheckWritable(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o200 != 0 {
		return nil // a missing file is created; a directory or an unreadable path fails where it is read
	}
	return fmt.Errorf("%s is read-only (mode %04o), so it was not changed; make it writable (chmod u+w %s) and retry: %w", path, fi.Mode().Perm(), path, ErrReadOnly)
}

// sideIgnore is the .gitignore a new store's .darwin-memo directory gets:
// the lock sidecar, the local event log (and its rotated parts) and
// interrupted temporary files are ignored, the store itself is committed.
func sideIgnore(store string) string {
	base := filepath.Base(store)
	return "# darwin-memo's side files: the lock, the local event log and temporary files.\n" +
		"# The store itself (" + base + ") is committed.\n" +
		base + ".lock\n" +
		filepath.Base(EventsPath(store)) + "*\n" +
		"." + base + ".tmp*\n"
}

// writeSideIgnore writes sideIgnore into the directory of a store just
// created when that directory is a .darwin-memo directory without a
// .gitignore of its own. It is best effort: the store is already saved, and
// a .gitignore only keeps side files out of commits.
func writeSideIgnore(store string) {
	dir := filepath.Dir(store)
	if filepath.Base(dir) != filepath.Dir(DefaultPath) {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return // one exists (kept as it is), or the directory refuses it
	}
	_, werr := f.WriteString(sideIgnore(store))
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
	}
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
	f       *os.File
	path    string
	created bool // this lock created the sidecar
}

// DefaultLockWait is how long LoadLocked and Save wait for another writer
// to release the store's lock when Options.LockWait is zero.
const DefaultLockWait = 5 * time.Second

// Lock takes the exclusive, non-blocking advisory lock on path+".lock"
// (mode 0600). It fails with ErrLocked at once when another process holds
// it; LockWait waits. The sidecar is kept, as in darwin-memo (see Discard).
func Lock(path string) (*FileLock, error) {
	return LockWait(context.Background(), path, -1)
}

// LockWait is Lock that retries for up to wait while another process holds
// the lock (wait < 0: do not wait). The error after the wait wraps ErrLocked.
func LockWait(ctx context.Context, path string, wait time.Duration) (*FileLock, error) {
	lp := path + ".lock"
	deadline := time.Now().Add(wait)
	pause := 5 * time.Millisecond
	for {
		lk, busy, err := tryLock(path, lp)
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

// tryLock makes one attempt. busy reports that another process holds the
// lock. After locking it checks that lp still names the locked file, so a
// sidecar removed by Discard in the meantime is never trusted.
func tryLock(path, lp string) (lk *FileLock, busy bool, err error) {
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

// EventsPath is the event log next to a store: lessons.json becomes
// lessons.events.jsonl.
func EventsPath(store string) string {
	ext := filepath.Ext(store)
	return strings.TrimSuffix(store, ext) + ".events.jsonl"
}

func sortStrings(s []string) { sort.Strings(s) }
