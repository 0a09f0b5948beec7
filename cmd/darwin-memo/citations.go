package main

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

// staleCitations is the reason decide gives for a lesson whose every citation is missing.
const staleCitations = "stale_citations"

// staleCitation is decide's DecideOptions.Exclude for the citations c checks: a lesson whose
// every citation is missing.
func staleCitation(c *citation.Checker) func(*lessons.Entry) string {
	return func(e *lessons.Entry) string {
		if citation.Stale(c.Check(e.Sources)) {
			return staleCitations
		}
		return ""
	}
}

// citationFindings are doctor's warnings about citations: the living lessons whose every
// citation is missing from the working tree, and, in a store that uses citations, the ones
// that cite nothing (no read-time check can tell when their code is gone).
func citationFindings(s *lessons.Store, storePath string) []lessons.Finding {
	cc := citation.OpenFor(storePath)
	defer cc.Close()
	var stale, uncited []string
	for _, e := range s.Living() {
		switch r := cc.Check(e.Sources); {
		case !citation.Mentions(e.Sources):
			uncited = append(uncited, e.ID)
		case citation.Stale(r):
			stale = append(stale, e.ID)
		}
	}
	var out []lessons.Finding
	if len(stale) > 0 {
		out = append(out, lessons.Finding{Code: "stale_citations", Severity: "warn",
			Summary:  fmt.Sprintf("%d living lesson(s) cite only files or symbols that no longer exist in the working tree; they do not decide", len(stale)),
			Evidence: map[string]any{"lessons": stale},
			Fix:      "cite the code's new place (darwin-memo add --cite PATH with a revised lesson, --supersedes the old one), or let the lesson starve"})
	}
	if len(uncited) > 0 && len(uncited) < len(s.Living()) {
		out = append(out, lessons.Finding{Code: "uncited", Severity: "warn",
			Summary:  fmt.Sprintf("%d living lesson(s) cite no file, so nothing tells when the code they describe is gone", len(uncited)),
			Evidence: map[string]any{"lessons": uncited},
			Fix:      "when revising such a lesson, add --cite PATH for the code it describes"})
	}
	return out
}
