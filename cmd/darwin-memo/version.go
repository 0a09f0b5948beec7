package main

import (
	"context"
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

const versionUsage = `version

Prints one line: the version, the commit and the Go version (and platform) of this build,
for example
  darwin-memo v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, go1.26.8, linux/amd64)
Release binaries and images carry the release tag; go install ...@VERSION carries the module
version; a build from a checkout carries its pseudo-version and commit. "darwin-memo --version"
is the same. The action logs this line first.`

// runVersion runs `darwin-memo version`.
func runVersion(_ context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "version", versionUsage)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(sio.Stdout, version.Get().String())
	return nil
}
