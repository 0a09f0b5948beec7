package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/demo"
)

const demoUsage = `demo [-rounds N] [-show-pr]

Runs the whole action in process against a fake GitHub holding a generated repository:
agents consult the lessons, a poisoned lesson breaks tests, trivia is never needed,
near-duplicates pile up, useful lessons fix tests. CI results are JUnit XML in workflow
artifacts, measured through the REST API. Prints one row per merged pull request and the fate
of every seeded lesson, read from the resulting store. No keys, no network, a few seconds.
With -show-pr it then prints the last bot pull request the action opened, as a maintainer
reviews it (settlements, births, obituaries, survivors, the Mermaid trend chart).
A legend below the table explains its columns. Exits 1 if selection did not do its job; a
history too short for every fate (fewer than about 26 rounds, since trivia starve slowly on the
idle upkeep of new stores) says which fates are still to come and exits 0.`

// runDemo runs `darwin-memo demo`.
func runDemo(ctx context.Context, sio *IO, args []string) error {
	fs := newFlags(sio, "demo", demoUsage)
	rounds := fs.Int("rounds", demo.DefaultRounds, "rounds of generated history (each round: features, agent fixes, lint chores; about 26 for the trivia to starve)")
	showPR := fs.Bool("show-pr", false, "after the table, print the last bot pull request's title and body (Markdown)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q; demo takes flags only", pos[0])
	}
	if *rounds < 1 || *rounds > 50 {
		return usagef("-rounds %d: use 1 to 50", *rounds)
	}
	res, err := demo.Run(ctx, demo.Options{Out: sio.Stdout, Rounds: *rounds})
	var outcome *demo.OutcomeError
	if errors.As(err, &outcome) {
		return errSilentExit // Run printed what went wrong
	}
	if err != nil {
		return err
	}
	if *showPR {
		if res.LastBotPR == "" {
			fmt.Fprintln(sio.Stdout, "\nThe action opened no bot pull request.")
			return nil
		}
		fmt.Fprintf(sio.Stdout, "\n----- the last bot pull request -----\n\n%s\n", res.LastBotPR)
	}
	return nil
}
