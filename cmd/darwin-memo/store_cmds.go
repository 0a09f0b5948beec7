package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// What every store command shares: the --store and --lock-wait flags, loading, the locked
// read-modify-write (mutate) and JSON output.

// storeFlag adds --store to fs.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", lessons.DefaultPath, "path of the lesson store")
}

// opts are the store options of every command. Options.Config applies only
// to a store the CLI creates (add or import on a missing file): it starts
// with lessons.RecommendedConfig. A loaded store keeps its persisted
// ledger.config, or gets darwin-memo's defaults when it has none.
func opts(sio *IO) lessons.Options {
	cfg := lessons.RecommendedConfig()
	return lessons.Options{Now: sio.Now, Config: &cfg}
}

// writeTarget is the store a changing command writes: --store and how long
// to wait for another writer's lock (--lock-wait).
type writeTarget struct {
	path string
	wait time.Duration
}

// writeFlags adds --store and --lock-wait to a command that changes the store.
func writeFlags(fs *flag.FlagSet) *writeTarget {
	t := &writeTarget{}
	fs.StringVar(&t.path, "store", lessons.DefaultPath, "path of the lesson store")
	fs.DurationVar(&t.wait, "lock-wait", lessons.DefaultLockWait, "how long to wait for another darwin-memo holding the store's lock (0: fail at once)")
	return t
}

// storeMode says whether a changing command may create a missing store.
type storeMode int

const (
	mustExist storeMode = iota // a missing store is an error (a mistyped --store creates nothing)
	mayCreate                  // add and import start a new store
)

// readStore loads a store read-only; a missing file gives an empty store.
func readStore(ctx context.Context, sio *IO, path string) (*lessons.Store, error) {
	s, err := lessons.LoadOrNew(ctx, path, opts(sio))
	if err != nil {
		return nil, explainLoad(err)
	}
	return s, nil
}

// readAgentStore loads the store an agent consults, read-only; a missing
// file gives an empty store and missing=true, so the command can say "no
// store" rather than "nothing relevant".
func readAgentStore(ctx context.Context, sio *IO, path string) (s *lessons.Store, missing bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		missing = true
	}
	if err == nil && fi.Mode().IsRegular() {
		// About what a consult allocates, in memory advised for huge pages.
		hugeHeap(int(min(3*fi.Size(), 1<<30)))
	}
	// Consulting reads no history notes and no graveyard: they are passed over, not loaded.
	o := opts(sio)
	o.ConsultOnly = true
	if err := ctx.Err(); err != nil {
		return nil, missing, err
	}
	if data, ok := readLarge(path); ok {
		s, err = lessons.ParseWith(path, data, o)
	} else {
		s, err = lessons.LoadOrNew(ctx, path, o)
	}
	if err != nil {
		return nil, missing, explainLoad(err)
	}
	return s, missing, nil
}

// locateStore is the store path of a consulting command: --store when it was
// given, else the first .darwin-memo/lessons.json in the working directory
// or a parent up to the repository root (findStore), so an agent working in
// a subdirectory still finds the repository's lessons.
func locateStore(fs *flag.FlagSet, path string) string {
	if storeGiven(fs) {
		return path
	}
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real // findStore walks the real path; a path relative to it is relative to the process's directory
	}
	if found := findStore(wd); found != "" {
		if rel, err := filepath.Rel(wd, found); err == nil {
			return rel
		}
		return found
	}
	return path
}

// storeGiven reports whether --store was given on the command line.
func storeGiven(fs *flag.FlagSet) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "store" })
	return given
}

// loadStore loads an existing store read-only, explaining format errors.
func loadStore(ctx context.Context, sio *IO, path string) (*lessons.Store, error) {
	s, err := lessons.LoadWith(ctx, path, opts(sio))
	if err != nil {
		return nil, explainLoad(err)
	}
	return s, nil
}

// explainLoad adds what to do next to a load error.
func explainLoad(err error) error {
	var fe *lessons.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%w\nthe store was not changed; fix the file (or restore it with git) and retry", err)
	}
	return err
}

// mutate runs fn under the store lock and saves the result. A command that
// fails changes nothing: when the store is missing (mode mustExist), the
// load fails, fn fails or nothing changed, no store, event log or lock
// sidecar is left behind.
func mutate(ctx context.Context, sio *IO, t *writeTarget, mode storeMode, fn func(s *lessons.Store) error) error {
	fi, err := os.Stat(t.path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("store %s is a directory; pass the lessons.json file with --store", t.path)
	case errors.Is(err, os.ErrNotExist) && mode == mustExist:
		return fmt.Errorf("store %s not found; nothing was changed (check --store, or create the store with darwin-memo add --store %s ...)", t.path, t.path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("could not read store %s: %w", t.path, err)
	}
	o := opts(sio)
	o.LockWait = t.wait
	if t.wait == 0 {
		o.LockWait = -1
	}
	s, err := lessons.LoadLocked(ctx, t.path, o)
	if err != nil {
		return explainLoad(err)
	}
	if err := fn(s); err != nil {
		s.Discard()
		return err
	}
	if dirty, err := s.Dirty(); err != nil || !dirty {
		s.Discard()
		return err
	}
	defer s.Close()
	if err := s.Save(ctx); err != nil {
		return fmt.Errorf("could not save %s: %w", t.path, err)
	}
	return nil
}

// checkFinite refuses a store whose balances are not finite numbers before
// a command does arithmetic on them (darwin-memo's parser accepts NaN).
func checkFinite(s *lessons.Store) error {
	for _, e := range s.Living() {
		if math.IsNaN(e.Energy) || math.IsInf(e.Energy, 0) {
			return fmt.Errorf("lesson %s has energy %v in %s, so no balance can be computed; fix the number in the file (or restore it with git) and retry; nothing was changed", e.ID, e.Energy, s.Name())
		}
	}
	return nil
}

// writeJSON prints v as compact JSON followed by a newline (HTML not escaped).
func writeJSON(sio *IO, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := sio.Stdout.Write(buf.Bytes())
	return err
}

// jsonFloat is a float of the JSON output: written as darwin-memo (Python)
// writes it (50.0, not 50), non-finite ones as null.
type jsonFloat = pyjson.JSONFloat
