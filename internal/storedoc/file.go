package storedoc

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrReadOnly is returned when a command would change a store whose file is
// read-only (no owner write bit), as git and editors respect it.
var ErrReadOnly = errors.New("store is read-only")

// DefaultPath is where a repository keeps its store.
const DefaultPath = ".darwin-memo/lessons.json"

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

// EventsPath is the event log next to a store: lessons.json becomes
// lessons.events.jsonl.
func EventsPath(store string) string {
	ext := filepath.Ext(store)
	return strings.TrimSuffix(store, ext) + ".events.jsonl"
}

// sideIgnore is the .gitignore writeSideIgnore writes for store.
func sideIgnore(store string) string {
	base := filepath.Base(store)
	return "# darwin-memo's side files: the lock, the local event log and temporary files.\n" +
		"# The store itself (" + base + ") is committed.\n" +
		base + ".lock\n" +
		filepath.Base(EventsPath(store)) + "*\n" +
		"." + base + ".tmp*\n"
}

// writeSideIgnore writes the .gitignore of a store just created into its directory when that
// directory is a .darwin-memo directory without a .gitignore of its own: the lock sidecar, the
// local event log (and its rotated parts) and interrupted temporary files are ignored, the
// store itself is committed. It is best effort: the store is already saved, and a .gitignore
// only keeps side files out of commits.
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

// fileSum streams the file at path through maphash with seed, for change detection (not
// security): its size and its sum.
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

// writeFileAtomicFunc is WriteFileAtomic with the content streamed by write. A file that
// exists keeps its mode; perm is a new file's.
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
