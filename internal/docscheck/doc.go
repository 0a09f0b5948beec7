// Package docscheck holds tests, and nothing else, that keep the documentation
// honest against the code: every input and output of action.yml is documented
// with its real default in README.md and docs/action.md, every relative link in
// the Markdown points at a file (and heading) that exists, the README's command
// list is the CLI's, the workflow snippets parse and use only declared inputs,
// and the Go identifiers the docs cite exist.
//
// The checks read the repository's files at test time (found by walking up to
// go.mod), need no network, and run in well under a second. A failure names
// the file, the item and what to change; fix the documentation or the code,
// never the check.
package docscheck
