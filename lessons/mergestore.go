package lessons

import (
	"fmt"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// MergeStore is storedoc.Merge loaded as a store with opts (ParseWith). An error says whether
// the documents did not merge or the merged store does not load.
func MergeStore(name string, base, ours, theirs []byte, custom map[string]storedoc.KeyMerger, opts Options) (*Store, error) {
	doc, err := storedoc.Merge(base, ours, theirs, custom)
	if err != nil {
		return nil, err
	}
	s, err := ParseWith(name, doc, opts)
	if err != nil {
		return nil, fmt.Errorf("the merged store does not load: %w", err)
	}
	return s, nil
}
