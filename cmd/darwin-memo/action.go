package main

import (
	"context"

	"github.com/darwin-memo/darwin-memo-action/internal/action"
)

const actionUsage = `action

Runs as the GitHub Action (the container's entrypoint). It reads the inputs from INPUT_*
(INPUT_GITHUB-TOKEN, INPUT_STORE, ...) and the run from GITHUB_* (GITHUB_EVENT_NAME,
GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY),
settles every merged pull request not processed yet, and opens or updates one bot pull
request. It talks to GitHub only through the REST API and never checks out code.
See docs/action.md for every input and output.`

// runAction runs `darwin-memo action` with the process environment.
func runAction(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "action", actionUsage)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q; the action reads its inputs from INPUT_* variables", pos[0])
	}
	if code := action.Main(ctx, action.Options{Getenv: sio.Getenv, Stdout: sio.Stdout, Now: sio.Now}); code != action.ExitOK {
		return errSilentExit
	}
	return nil
}
