package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/mcpserver"
	"github.com/darwin-memo/darwin-memo-action/internal/version"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

const mcpUsage = `mcp [--store PATH]

Serves the lesson store to a coding agent over the Model Context Protocol on
stdin/stdout (read-only). Tools: consult (the decide path: the answer and the
ticket line for the pull request body), search (the query path) and lesson
(why). Resource: darwin-memo://lessons.md, the rendered living lessons.

Without --store the server uses the store every command finds: the first
.darwin-memo/lessons.json in the working directory or a parent, up to the
repository root (the way git finds .git), or up to the home directory outside
a repository.
A store that changes on disk is re-read. Agent setup files: docs/agents.md.`

// runMCP runs `darwin-memo mcp`.
func runMCP(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "mcp", mcpUsage)
	store := storeFlag(fs)
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
	srv := mcpserver.New(mcpserver.Options{Store: *store, Version: version.Get().Version, Now: sio.Now, RenderBudget: b})
	err = srv.Run(ctx, &mcpserver.StdioTransport{Reader: sio.Stdin, Writer: sio.Stdout})
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return fmt.Errorf("mcp server: %w", err)
}
