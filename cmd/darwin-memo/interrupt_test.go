package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Ctrl-C during a long tick stops it (exit 1) and leaves the store as it was.
func TestInterruptedTickChangesNothing(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lessons.json")
	var out, errb bytes.Buffer
	sio := &IO{Stdout: &out, Stderr: &errb}
	if code := run(context.Background(), []string{"add", "--store", store, "q", "a"}, sio); code != 0 {
		t.Fatalf("add: %d %s", code, errb.String())
	}
	before, _ := os.ReadFile(store)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"tick", "--store", store, "--count", "2000000000"}, sio) }()
	select {
	case code := <-done:
		if code != exitError {
			t.Errorf("interrupted tick exited %d, want 1", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tick went on after the interrupt")
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("an interrupted tick changed the store")
	}
}
