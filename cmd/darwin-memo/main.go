// Command darwin-memo keeps a repository's lessons for AI coding agents
// honest: agents consult it (decide, query), CI settles the tickets their
// PRs carry, and lessons that never help starve while lessons that cost
// tests are executed.
//
// Usage:
//
//	darwin-memo <command> [flags] [args]
//
// Run "darwin-memo help" for the list of commands and "darwin-memo
// <command> -h" for one command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Exit codes.
const (
	exitOK        = 0
	exitError     = 1
	exitUsage     = 2
	exitAbstained = 3
)

// IO is everything a command may touch outside its arguments, so tests run
// commands in-process with buffers and a fixed clock.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time

	// seeFlags, when set, is shown each command's flag set as it is made: the
	// tests generate docs/cli.md's command reference from them.
	seeFlags func(name string, fs *flag.FlagSet)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, sio *IO, args []string) error
}

// commands is the command list, in help order. Other packages' commands
// (action, demo) live in their own files and add one line each at
// the end of this list.
func commands() []command {
	return []command{
		{"decide", "consult the store for a task and print the answer with a ticket line for the PR body", runDecide},
		{"query", "rank lessons for a query (read-only, no ticket)", runQuery},
		{"add", "add a lesson", runAdd},
		{"settle", "apply a measured outcome delta to a pending ticket, or to every ticket in a PR body", runSettle},
		{"abandon", "close a pending ticket without an outcome", runAbandon},
		{"tick", "advance time: expiry, upkeep, deaths, consolidation", runTick},
		{"stats", "summarise the store (--json for machines)", runStats},
		{"top", "list living lessons by balance with their runway", runTop},
		{"why", "tell one lesson's life story", runWhy},
		{"obituary", "same as why", runObituary},
		{"forget", "bury a lesson explicitly", runForget},
		{"pin", "pin a lesson (it never starves or merges)", runPin},
		{"unpin", "remove a pin", runUnpin},
		{"import", "import the living lessons of another store on probation", runImport},
		{"render", "write the living lessons to a Markdown file within a hard byte budget", runRender},
		{"doctor", "diagnose whether the store is fed with evidence", runDoctor},
		{"mcp", "serve the store to coding agents over the Model Context Protocol (stdio, read-only)", runMCP},
		// Commands owned by other packages go here, one line each:
		{"action", "run as the GitHub Action: settle merged PRs and update the bot PR (reads INPUT_*, GITHUB_*)", runAction},
		{"demo", "watch selection work: the whole action against an in-process fake GitHub (no keys, no network)", runDemo},
		{"version", "print the version, the commit and the Go version of this build (also --version)", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now})
	stop()
	os.Exit(code)
}

// run dispatches args to a command and maps its error to an exit code.
func run(ctx context.Context, args []string, sio *IO) int {
	if sio.Getenv == nil {
		sio.Getenv = func(string) string { return "" }
	}
	if sio.Now == nil {
		sio.Now = time.Now
	}
	cmds := commands()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) == 2 && args[0] == "help" && args[1] != "-h" && args[1] != "--help" {
		args = []string{args[1], "-h"} // help CMD is CMD -h
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(sio.Stdout, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range cmds {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, sio, args[1:])
		return exitCode(sio.Stderr, c.name, err)
	}
	fmt.Fprintf(sio.Stderr, "darwin-memo: unknown command %q%s\nrun \"darwin-memo help\" for the list of commands\n", args[0], suggest(args[0], cmds))
	return exitUsage
}

func printHelp(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "darwin-memo: measured memory for coding agents")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: darwin-memo <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every lessons command takes --store PATH (default: the first .darwin-memo/lessons.json in the")
	fmt.Fprintln(w, "working directory or a parent, up to the repository root).")
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 error, 2 usage, 3 abstained. Run \"darwin-memo <command> -h\" for details.")
}

// suggest names a command close to a mistyped one.
func suggest(name string, cmds []command) string {
	lower := strings.ToLower(name)
	for _, c := range cmds {
		if strings.HasPrefix(c.name, lower) || strings.HasPrefix(lower, c.name) || editDistance(lower, c.name) <= 2 {
			return fmt.Sprintf(" (did you mean %q?)", c.name)
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of two neighbours.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// abstainError means the command could not measure anything and changed
// nothing (exit 3).
type abstainError struct{ reason string }

func (e *abstainError) Error() string { return "abstained: " + e.reason }

// exitCode prints err (if any) and returns the exit code for it.
func exitCode(stderr io.Writer, name string, err error) int {
	var ue *usageError
	var ae *abstainError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "darwin-memo %s: %v\nrun \"darwin-memo %s -h\" for usage\n", name, err, name)
		return exitUsage
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "darwin-memo %s: %v\n", name, err)
		return exitAbstained
	case errors.Is(err, errSilentExit):
		return exitError
	default:
		fmt.Fprintf(stderr, "darwin-memo %s: %v\n", name, err)
		return exitError
	}
}

// errSilentExit exits 1 without printing (the command already explained).
var errSilentExit = errors.New("exit 1")

// newFlags returns a flag set for a command. The flag package's own
// messages are discarded: parseFlags prints the usage for -h, and exitCode
// prints a parse error once.
func newFlags(sio *IO, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("darwin-memo "+name, flag.ContinueOnError)
	fs.SetOutput(sio.Stderr)
	if sio.seeFlags != nil {
		sio.seeFlags(name, fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: darwin-memo %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
		if ex := examples[name]; len(ex) > 0 {
			fmt.Fprintf(fs.Output(), "\nExamples:\n  %s\n", strings.Join(ex, "\n  "))
		}
	}
	return fs
}

// parseFlags parses flags that may come before or after positional
// arguments and returns the positional arguments. A --store not given is
// set to the store found from the working directory (locateStore).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	for {
		// A negative number ("settle TICKET -1") is an argument, not a flag: parse up to it.
		num := numberAt(fs, args)
		head := args[:num]
		if err := fs.Parse(head); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fs.Usage()
				return nil, err
			}
			return nil, &usageError{err.Error()}
		}
		rest := fs.Args()
		if len(head) > 0 && len(rest) < len(head) && head[len(head)-len(rest)-1] == "--" {
			return append(append(pos, rest...), args[num:]...), locateStore(fs)
		}
		if len(rest) == 0 {
			if num == len(args) {
				return pos, locateStore(fs)
			}
			pos = append(pos, args[num])
			args = args[num+1:]
			continue
		}
		pos = append(pos, rest[0])
		args = append(rest[1:], args[num:]...)
	}
}

// numberAt returns the index of the first argument that is a negative
// number standing where a flag could (not the value of the flag before it),
// or len(args).
func numberAt(fs *flag.FlagSet, args []string) int {
	for i, a := range args {
		if a == "--" {
			break
		}
		if _, err := strconv.ParseFloat(a, 64); err == nil && strings.HasPrefix(a, "-") && (i == 0 || !takesValue(fs, args[i-1])) {
			return i
		}
	}
	return len(args)
}

// takesValue reports whether arg is a flag of fs whose value is the next argument.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if !strings.HasPrefix(arg, "-") || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
