package junit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ErrTooManyCases is wrapped by Tally.Add when the testcases read exceed Tally.MaxCases.
var ErrTooManyCases = errors.New("too many testcases")

// MaxIDBytes bounds the test ids a Tally keeps: a longer id is kept as its first 200 bytes, an
// ellipsis and a hash of the whole id, so hostile names cannot make the ids outweigh the cap
// on testcases, and distinct ids stay distinct.
const MaxIDBytes = 512

// maxCollection bounds the collection-error ids a Tally lists (it counts them all).
const maxCollection = 20

// Tally reduces JUnit XML documents to one status per test id while they are parsed: it keeps
// the result map and nothing of the documents or their testcases, so memory grows with the
// number of distinct tests, never with the size of the reports (a failure's text is dropped
// as soon as its first line is known). Several documents (the reports of one commit) add up;
// duplicate ids combine with Combine.
type Tally struct {
	// MaxCases, when positive, caps the testcases read across every document added; the
	// testcase past it makes Add fail with an error wrapping ErrTooManyCases.
	MaxCases int

	results     map[string]Status
	cases       int
	collection  []string
	collections int
}

// Add streams one document into the tally. name is used only in error messages. On an error
// the tally may hold part of the document; callers abstain on it.
func (t *Tally) Add(name string, r io.Reader) error {
	if t.results == nil {
		t.results = map[string]Status{}
	}
	return walk(name, r, func(c *Case, collection bool) error {
		if t.MaxCases > 0 && t.cases >= t.MaxCases {
			return fmt.Errorf("junit: %s: more than %d testcases: %w", name, t.MaxCases, ErrTooManyCases)
		}
		t.cases++
		id := compactID(c.ID)
		if collection {
			t.collections++
			if len(t.collection) < maxCollection {
				t.collection = append(t.collection, id)
			}
		}
		Record(t.results, id, c.Status)
		return nil
	})
}

// Results returns the status of every test id seen (the tally's own map; do not modify it).
func (t *Tally) Results() map[string]Status {
	if t.results == nil {
		return map[string]Status{}
	}
	return t.results
}

// Cases is the number of testcases read, duplicates included.
func (t *Tally) Cases() int { return t.cases }

// CollectionErrors lists the first ids of testcases with an empty classname and an <error>
// (a module pytest could not collect), and how many there were in all.
func (t *Tally) CollectionErrors() ([]string, int) { return t.collection, t.collections }

// compactID returns id, or for an id longer than MaxIDBytes its first 200 bytes (cut on a
// rune boundary), "…#" and 16 hex digits of its SHA-256.
func compactID(id string) string {
	if len(id) <= MaxIDBytes {
		return id
	}
	head := id[:200]
	for !utf8.ValidString(head) && len(head) > 0 {
		head = head[:len(head)-1]
	}
	sum := sha256.Sum256([]byte(id))
	return head + "…#" + hex.EncodeToString(sum[:8])
}

// Supersede adds the results of newer, the reports of a later attempt of the same workflow run
// (a re-run job), to t: for an id both hold, newer's status replaces t's instead of combining
// with it, because the re-run is the job's result now. Counts add up as in Merge.
func (t *Tally) Supersede(newer *Tally) {
	for id := range newer.results {
		delete(t.results, id)
	}
	t.Merge(newer)
}

// Merge adds the results of other to t (the artifacts of one commit, tallied one by one).
// MaxCases is not checked: the caller gives each part what is left of its budget.
func (t *Tally) Merge(other *Tally) {
	if t.results == nil {
		t.results = make(map[string]Status, len(other.results))
	}
	for id, s := range other.results {
		Record(t.results, id, s)
	}
	t.cases += other.cases
	t.collections += other.collections
	for _, id := range other.collection {
		if len(t.collection) < maxCollection {
			t.collection = append(t.collection, id)
		}
	}
}
