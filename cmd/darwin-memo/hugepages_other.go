//go:build !linux

package main

// readLarge reads large files specially only on Linux; elsewhere the caller
// reads them the ordinary way.
func readLarge(string) ([]byte, bool) { return nil, false }

// hugeHeap advises huge pages only on Linux.
func hugeHeap(int) {}
