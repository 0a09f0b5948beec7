package main

import (
	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// staleCitations is the reason decide gives for a lesson whose every citation is missing.
const staleCitations = "stale_citations"

// citeChecker checks the hits of one query against the working tree of the repository the
// store at storePath is in. A tree that cannot be opened checks nothing (every lesson stands).
type citeChecker struct {
	c    *citation.Checker
	seen map[*lessons.Entry][]citation.Result
}

func openCiteChecker(storePath string) *citeChecker {
	cc := &citeChecker{seen: map[*lessons.Entry][]citation.Result{}}
	if root, err := citation.RepoRoot(storePath); err == nil {
		cc.c, _ = citation.Open(root)
	}
	return cc
}

// of returns e's checked citations (nil when it cites nothing).
func (cc *citeChecker) of(e *lessons.Entry) []citation.Result {
	if cc.c == nil || !citation.Mentions(e.Sources) {
		return nil
	}
	r, ok := cc.seen[e]
	if !ok {
		r = cc.c.Check(e.Sources)
		cc.seen[e] = r
	}
	return r
}

// exclude is decide's DecideOptions.Exclude: a lesson whose every citation is missing.
func (cc *citeChecker) exclude(e *lessons.Entry) string {
	if citation.Stale(cc.of(e)) {
		return staleCitations
	}
	return ""
}

func (cc *citeChecker) close() {
	if cc.c != nil {
		cc.c.Close()
	}
}
