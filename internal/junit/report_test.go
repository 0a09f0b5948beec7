package junit

import (
	"bytes"
	"io"
	"sort"
)

// The in-memory parser below lets the tests inspect every testcase (ids,
// messages, duplicates); the product reads reports through Tally only.

// Report is the parsed content of one or more JUnit XML documents.
type Report struct {
	// Cases holds every testcase in document order, duplicates included.
	Cases []Case
	// CollectionErrors lists testcases that carry an <error> while their
	// classname is empty: how pytest reports a module that failed to
	// collect. darwin-memo abstains on these; see HasCollectionError.
	CollectionErrors []string
}

// Parse reads one JUnit XML document. It accepts <testsuites> and
// <testsuite> roots, suites nested to any depth and testcases directly under
// <testsuites>. name is used only in error messages.
func Parse(name string, r io.Reader) (*Report, error) {
	rep := &Report{}
	if err := rep.add(name, r); err != nil {
		return nil, err
	}
	return rep, nil
}

// ParseBytes is Parse over an in-memory document.
func ParseBytes(name string, data []byte) (*Report, error) {
	return Parse(name, bytes.NewReader(data))
}

// Merge appends the cases of other to r (several report files of one run).
func (r *Report) Merge(other *Report) {
	if other == nil {
		return
	}
	r.Cases = append(r.Cases, other.Cases...)
	r.CollectionErrors = append(r.CollectionErrors, other.CollectionErrors...)
}

// HasCollectionError reports whether any testcase with an empty classname
// carries an <error>.
func (r *Report) HasCollectionError() bool { return len(r.CollectionErrors) > 0 }

// Results reduces the cases to one status per id, combining duplicates.
func (r *Report) Results() map[string]Status {
	out := make(map[string]Status, len(r.Cases))
	for _, c := range r.Cases {
		if prev, ok := out[c.ID]; ok {
			out[c.ID] = Combine(prev, c.Status)
			continue
		}
		out[c.ID] = c.Status
	}
	return out
}

// FlakyIDs returns the sorted ids whose combined status is Flaky.
func FlakyIDs(results map[string]Status) []string {
	var ids []string
	for id, s := range results {
		if s == Flaky {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (r *Report) add(name string, src io.Reader) error {
	return walk(name, src, func(c *Case, collection bool) error {
		if collection {
			r.CollectionErrors = append(r.CollectionErrors, c.ID)
		}
		r.Cases = append(r.Cases, *c)
		return nil
	})
}
