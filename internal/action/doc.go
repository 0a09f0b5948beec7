// Package action is the `darwin-memo action` entry point: it reads the GitHub Actions runner
// contract (inputs, environment, event payload), reconciles every merged pull request that the
// committed lesson store has not processed yet, and publishes the result as one bot pull request
// plus a step summary and step outputs.
//
// The package talks to GitHub only through go-github against GITHUB_API_URL; it never checks out
// or executes pull-request code. Nothing here reads process globals: the environment, the clock,
// the HTTP client and the output streams are injected, so tests drive [Run] against the fake
// GitHub server in internal/ghfake.
package action
