package storedoc

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"time"
)

// ErrStale is returned by Save when the file changed since it was read.
var ErrStale = errors.New("store changed since load; reload before writing")

// File is a store file as its reader holds it: the path, what was read there (a sum, for the
// stale-writer check) and the advisory lock a whole load-modify-save holds.
type File struct {
	path    string
	existed bool
	seed    maphash.Seed // keys sum; chosen when the File is created
	sum     uint64       // maphash of the bytes (change detection, not security)
	size    int64
	lock    *FileLock
}

// ReadFile reads the store document at path and the File that remembers it. A missing file is
// an error that wraps os.ErrNotExist.
func ReadFile(ctx context.Context, path string) ([]byte, *File, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("store %s not found (create it with `darwin-memo add --store %s ...`): %w", path, path, err)
		}
		return nil, nil, fmt.Errorf("could not read store %s: %w", path, err)
	}
	seed := maphash.MakeSeed()
	return data, &File{path: path, existed: true, seed: seed, sum: maphash.Bytes(seed, data), size: int64(len(data))}, nil
}

// NewFile is the File of a store that does not exist yet at path.
func NewFile(path string) *File { return &File{path: path, seed: maphash.MakeSeed()} }

// Path returns the file's path ("" for a nil File).
func (f *File) Path() string {
	if f == nil {
		return ""
	}
	return f.path
}

// Hold keeps lk, the lock on the file, until Unlock or Discard.
func (f *File) Hold(lk *FileLock) { f.lock = lk }

// Unlock releases the lock the file holds, if any.
func (f *File) Unlock() error {
	if f == nil || f.lock == nil {
		return nil
	}
	err := f.lock.Unlock()
	f.lock = nil
	return err
}

// Discard releases the lock the file holds, if any, removing the sidecar if that lock created
// it (FileLock.Discard).
func (f *File) Discard() error {
	if f == nil || f.lock == nil {
		return nil
	}
	err := f.lock.Discard()
	f.lock = nil
	return err
}

// Differs reports whether the document write produces differs from the bytes the file had when
// read (always true for a file that did not exist). Nothing is held in memory: the bytes go
// through the file's hash.
func (f *File) Differs(write func(io.Writer) (int64, error)) (bool, error) {
	if f == nil || !f.existed {
		return true, nil
	}
	var h maphash.Hash
	h.SetSeed(f.seed)
	n, err := write(&h)
	if err != nil {
		return true, err
	}
	return n != f.size || h.Sum64() != f.sum, nil
}

// Save writes the document write produces to path: the lock (unless f holds the one on path,
// waiting up to wait for another writer), the read-only check, the stale-writer check when path
// is f's (the file must be as it was read), then an atomic write as WriteFileAtomic's; a store
// just created gets its .darwin-memo directory's .gitignore, and events are appended to the
// event log next to it (rotated at 10 MiB), all under the lock. f may be nil, for a document
// that was not read from a file. It returns the File that now remembers path's bytes: f when
// path is f's, a new File when f is nil, and f unchanged when the document was saved elsewhere.
func Save(ctx context.Context, f *File, path string, wait time.Duration, write func(io.Writer) (int64, error), events []Event) (*File, error) {
	if err := ctx.Err(); err != nil {
		return f, err
	}
	if f == nil || f.lock == nil || f.path != path {
		lk, err := LockWait(ctx, path, wait)
		if err != nil {
			return f, err
		}
		defer lk.Unlock()
	}
	if err := CheckWritable(path); err != nil {
		return f, err
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	same := f != nil && f.path == path
	if same {
		size, sum, err := fileSum(path, f.seed)
		switch {
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return f, fmt.Errorf("could not re-read %s before writing: %w", path, err)
		case err != nil && f.existed:
			return f, fmt.Errorf("%s was deleted since load; reload before writing: %w", path, ErrStale)
		case err == nil && (!f.existed || size != f.size || sum != f.sum):
			return f, fmt.Errorf("%s changed since load; reload before writing: %w", path, ErrStale)
		}
	}
	var h maphash.Hash
	if same {
		h.SetSeed(f.seed)
	}
	var size int64
	err := writeFileAtomicFunc(path, 0o644, func(out io.Writer) error {
		var err error
		size, err = write(io.MultiWriter(out, &h))
		return err
	})
	if err != nil {
		return f, err
	}
	if f == nil || same {
		if f == nil {
			f = &File{path: path, seed: h.Seed()}
		}
		f.existed = true
		f.sum, f.size = h.Sum64(), size
	}
	if created {
		writeSideIgnore(path)
	}
	if err := appendEvents(EventsPath(path), events); err != nil {
		return f, fmt.Errorf("store saved, but the event log could not be written: %w", err)
	}
	return f, nil
}
