// Package textidx holds the text machinery of darwin-memo lessons: the
// tokeniser, token-set Jaccard similarity, an inverted smoothed-IDF index
// for retrieval, and anchor clustering for consolidation.
//
// Everything here reproduces the Python darwin-memo semantics exactly
// (tokenisation and scoring in retrieval.py, anchor clustering in
// consolidate.py), but is built to stay fast at 100k lessons:
//
//   - [Tokens] turns text into a token set, [Jaccard] compares two sets.
//   - A [Dict] interns tokens as uint32 ids; [JaccardIDs] compares sorted
//     id sets without allocating.
//   - An [Index] is built once per store load and answers [Index.Rank] by
//     walking postings lists of the query tokens, never by scanning all
//     documents or recomputing document frequencies.
//   - [Cluster] is the sub-quadratic anchor clustering (length and prefix
//     filtering over an inverted index); [ClusterQuadratic] is the
//     straightforward reference it is property-tested against.
//
// The package has no global mutable state; all values are safe for
// concurrent reads, and an Index must not be mutated concurrently with
// reads.
package textidx
