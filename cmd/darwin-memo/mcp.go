package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
	"github.com/darwin-memo/darwin-memo-action/internal/version"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

const mcpUsage = `mcp [--store PATH]

Serves the lesson store to a coding agent over the Model Context Protocol on
stdin/stdout (read-only). Tools: consult (the decide path: the answer and the
ticket line for the pull request body), search (the query path) and lesson
(why). Resource: darwin-memo://lessons.md, the rendered living lessons.

Without --store the server looks for .darwin-memo/lessons.json in the working
directory and its parents up to the repository root, the way git finds .git.
A store that changes on disk is re-read. Agent setup files: docs/agents.md.

Examples:
  darwin-memo mcp
  claude mcp add darwin-memo -- darwin-memo mcp`

// runMCP runs `darwin-memo mcp`.
func runMCP(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "mcp", mcpUsage)
	store := fs.String("store", "", "path of the lesson store (default: .darwin-memo/lessons.json here or in a parent up to the repository root)")
	budget := fs.String("render-budget", "25kb", "byte budget of the lessons.md resource")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	b, err := lessons.ParseBudget(*budget)
	if err != nil {
		return usagef("--render-budget: %v", err)
	}
	path := *store
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("finding the store: %w", err)
		}
		path = findStore(wd)
	}
	srv := mcpserver.New(mcpserver.Options{Store: path, Version: version.Get().Version, Now: sio.Now, RenderBudget: b})
	err = srv.Run(ctx, &mcp.IOTransport{Reader: readCloser{sio.Stdin}, Writer: writeCloser{sio.Stdout}})
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("mcp server: %w", err)
}

// findStore returns the store path for a process started in dir: the first
// .darwin-memo/lessons.json in dir or a parent, stopping at the repository
// root (a directory holding .git). When none exists it returns the default
// path relative to dir's repository root (or dir), so the server can say
// where the store is expected. Like git, it walks dir's real path: through a
// symbolic link, the parents of the link are not the repository's.
func findStore(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; {
		p := filepath.Join(d, lessons.DefaultPath)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p // a directory named lessons.json is not a store: look further up
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Join(dir, lessons.DefaultPath)
		}
		d = parent
	}
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
