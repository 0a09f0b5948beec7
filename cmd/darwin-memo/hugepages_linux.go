//go:build linux

package main

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// supports on Linux.
const hugePage = 2 << 20

// maxHuge bounds the memory advised for huge pages, by readLarge and by
// hugeHeap each: where the kernel has to compact memory to find huge
// pages, advising hundreds of megabytes costs more system time than the
// faults it saves (a 160 MB store at 100k lessons: 0.2 s more).
const maxHuge = 64 << 20

// readLarge reads a large regular file into memory that the kernel may back
// with transparent huge pages (madvise): a 16 MB store is then faulted in as
// a few 2 MB pages instead of 4,096 small ones, which at 10k lessons takes
// about 6 ms off a consult (the read drops from about 8 ms to 2.5 ms).
//
// The memory is outside the Go heap and is never returned: it is for a
// process that reads one store and exits (decide, query). ok is false when
// the file is small, not a regular file, changes size while read, or
// anything fails; the caller then reads it the ordinary way.
func readLarge(path string) (data []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < hugePage || fi.Size() > maxHuge {
		return nil, false
	}
	n := int(fi.Size())
	buf, err := syscall.Mmap(-1, 0, (n+hugePage)&^(hugePage-1), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, false
	}
	_ = syscall.Madvise(buf, madvHugePage) // advice only: small pages still work
	m, err := io.ReadFull(f, buf[:n])
	if err != nil || m != n {
		_ = syscall.Munmap(buf)
		return nil, false
	}
	if k, _ := f.Read(buf[n : n+1]); k != 0 { // the file grew
		_ = syscall.Munmap(buf)
		return nil, false
	}
	return buf[:n:n], true
}

// madvHugePage is MADV_HUGEPAGE.
const madvHugePage = 14

// hugeHeap prepares the heap of a short consulting run for about n bytes
// of allocations backed by transparent huge pages. The runtime maps heap
// memory without advice, so under the usual THP setting ("madvise") the
// kernel faults it in 4 KB at a time: about 7,000 faults (5 ms) for a v2
// decide at 10k lessons. hugeHeap allocates n bytes, which maps that much
// heap without touching it, advises the kernel to back the range with huge
// pages (MADV_HUGEPAGE), and frees it at once with a collection of the
// still tiny heap, so that the allocations that follow reuse the advised
// range: the run then takes about 2,000 faults and 5 ms less (3 ms for
// darwin-memo's ranking). It is advice only: where huge pages are off or
// the advice fails, nothing changes but a collection of a small heap.
func hugeHeap(n int) {
	if n < hugePage {
		return
	}
	n = min(n, maxHuge)
	b := make([]byte, n)
	// The whole huge pages inside b.
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg, end := (p+hugePage-1)&^(hugePage-1)-p, (p+uintptr(n))&^(hugePage-1)-p
	if beg < end {
		_ = syscall.Madvise(b[beg:end], madvHugePage)
	}
	runtime.KeepAlive(b)
	runtime.GC() // b is garbage: its pages go back to the heap, advised
}
