package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestReadLarge(t *testing.T) {
	dir := t.TempDir()
	large := make([]byte, 5<<20+123)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range large {
		large[i] = byte(r.IntN(256))
	}
	for _, tc := range []struct {
		name string
		data []byte // nil: a directory
		ok   bool   // read specially (on Linux)
	}{
		{"large", large, runtime.GOOS == "linux"},
		{"small", large[:4096], false},
		{"empty", []byte{}, false},
		{"directory", nil, false},
	} {
		p := filepath.Join(dir, tc.name)
		if tc.data == nil {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := readLarge(p)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.name, ok, tc.ok)
		}
		if ok && !bytes.Equal(got, tc.data) {
			t.Errorf("%s: read %d bytes that differ from the file's %d", tc.name, len(got), len(tc.data))
		}
	}
	if _, ok := readLarge(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file was read")
	}
}

// hugeHeap is advice: the heap works as before after it.
func TestHugeHeap(t *testing.T) {
	hugeHeap(8 << 20)
	hugeHeap(1) // too small to advise
	b := make([]byte, 4<<20)
	for i := range b {
		b[i] = byte(i)
	}
	if b[len(b)-1] != byte(len(b)-1) {
		t.Fatal("heap memory after hugeHeap does not hold what was written")
	}
}
