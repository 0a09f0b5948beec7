package storedoc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// writer is the write function of a document doc.
func writer(doc string) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		n, err := io.WriteString(w, doc)
		return int64(n), err
	}
}

// Save writes over the file it read only while the file is as it was read; Differs compares a
// document with what was read.
func TestSaveChecksTheFileIsAsRead(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		between func(path string) // what happens to the file between the read and the save
		wantErr error
	}{
		{name: "unchanged"},
		{name: "changed", between: func(p string) { os.WriteFile(p, []byte(`{"x": 2}`), 0o644) }, wantErr: ErrStale},
		{name: "deleted", between: func(p string) { os.Remove(p) }, wantErr: ErrStale},
		{name: "read-only", between: func(p string) { os.Chmod(p, 0o444) }, wantErr: ErrReadOnly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".darwin-memo")
			p := filepath.Join(dir, "lessons.json")
			if err := WriteFileAtomic(p, []byte(`{"x": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			data, f, err := ReadFile(ctx, p)
			if err != nil || string(data) != `{"x": 1}` {
				t.Fatalf("ReadFile = %q, %v", data, err)
			}
			if d, err := f.Differs(writer(`{"x": 1}`)); d || err != nil {
				t.Errorf("Differs the bytes read = %v, %v", d, err)
			}
			if d, _ := f.Differs(writer(`{"x": 3}`)); !d {
				t.Error("Differs other bytes = false")
			}
			if c.between != nil {
				c.between(p)
			}
			ev := []Event{NewEvent("tick", 1, "ts")}
			f2, err := Save(ctx, f, p, -1, writer(`{"x": 3}`), ev)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("Save = %v, want %v", err, c.wantErr)
			}
			if f2 != f {
				t.Error("Save on the file read returned another File")
			}
			got, _ := os.ReadFile(p)
			logged, _ := ReadEvents(EventsPath(p))
			if c.wantErr != nil {
				if bytes.Equal(got, []byte(`{"x": 3}`)) || len(logged) != 0 {
					t.Errorf("a refused save wrote %q and %d events", got, len(logged))
				}
				return
			}
			if string(got) != `{"x": 3}` || len(logged) != 1 {
				t.Errorf("saved %q and %d events", got, len(logged))
			}
			if d, _ := f.Differs(writer(`{"x": 3}`)); d {
				t.Error("the File does not remember the bytes saved")
			}
		})
	}
}

// A document saved to a new path gets a File, and a new .darwin-memo directory its .gitignore.
func TestSaveNewStore(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), ".darwin-memo", "lessons.json")
	f, err := Save(ctx, nil, p, -1, writer(`{}`), nil)
	if err != nil || f.Path() != p {
		t.Fatalf("Save = %v, %v", f, err)
	}
	ignore, err := os.ReadFile(filepath.Join(filepath.Dir(p), ".gitignore"))
	if err != nil || !bytes.Contains(ignore, []byte("lessons.json.lock\nlessons.events.jsonl*\n")) {
		t.Errorf(".gitignore %q, %v", ignore, err)
	}
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Errorf("the lock sidecar is kept, as darwin-memo keeps it: %v", err)
	}
}
