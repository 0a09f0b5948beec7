package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
	"github.com/darwin-memo/darwin-memo-action/internal/storefind"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// What every store command shares: the --store and --lock-wait flags, loading, the locked
// read-modify-write (mutate) and JSON output.

// storeFlag adds --store to fs.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", "", storeUsage)
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
	fs.StringVar(&t.path, "store", "", storeUsage)
	t.wait = storedoc.DefaultLockWait
	fs.Var((*lockWaitValue)(&t.wait), "lock-wait", "how long to wait for another darwin-memo holding the store's lock (0: fail at once)")
	return t
}

// lockWaitValue is --lock-wait: a duration of 0 or more.
type lockWaitValue time.Duration

func (v *lockWaitValue) String() string { return time.Duration(*v).String() }

func (v *lockWaitValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration of 0 or more, e.g. 5s or 0", s)
	}
	*v = lockWaitValue(d)
	return nil
}

// storeMode says whether a changing command may create a missing store.
type storeMode int

const (
	mustExist storeMode = iota // a missing store is an error (a mistyped --store creates nothing)
	mayCreate                  // add and import start a new store
)

// readAgentStore loads the store an agent consults, read-only; a missing
// file gives an empty store and missing=true, so the command can say "no
// store" rather than "nothing relevant".
func readAgentStore(ctx context.Context, sio *IO, path string) (s *lessons.Store, missing bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		missing = true
	}
	// Consulting reads no history notes and no graveyard: they are passed over, not loaded.
	o := opts(sio)
	o.ConsultOnly = true
	s, err = lessons.LoadOrNew(ctx, path, o)
	if err != nil {
		return nil, missing, explainLoad(err)
	}
	return s, missing, nil
}

// storeUsage is the help text of every command's --store flag.
const storeUsage = "path of the lesson store (default: the nearest " + storefind.Name + " in the working directory or a parent, up to the repository root)"

// locateStore sets fs's --store, when it was not given, to the store the
// one discovery rule of package storefind finds from the working directory,
// relative to it, so every command, reading or writing, uses the same store.
func locateStore(fs *flag.FlagSet) error {
	f := fs.Lookup("store")
	if f == nil {
		return nil
	}
	if storeGiven(fs) {
		if strings.TrimSpace(f.Value.String()) == "" {
			return usagef("--store is empty; pass the path of the lessons.json, or leave --store out to use %s up to the repository root", storefind.Name)
		}
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the store: %w (pass --store)", err)
	}
	home, _ := os.UserHomeDir() // unknown home: the search stops at the working directory outside a repository
	path, _ := storefind.Find(wd, home)
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real // Find walks the real path; a path relative to it is relative to the process's directory
	}
	if rel, err := filepath.Rel(wd, path); err == nil {
		path = rel
	}
	return f.Value.Set(path)
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
