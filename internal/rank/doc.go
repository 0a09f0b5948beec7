// Package rank holds the text machinery of darwin-memo lessons and all of
// their ranking: the tokeniser, token-set Jaccard similarity, an inverted
// smoothed-IDF index and a BM25F index for retrieval, the rules of a
// consult, and anchor clustering for consolidation. It knows lessons only
// as its owner describes them ([Source]); it does not know the store.
//
// Everything reproduces the Python darwin-memo semantics (tokenisation and
// scoring in retrieval.py, anchor clustering in consolidate.py), sized
// for the supported store of about 30k lessons:
//
//   - [Tokens] turns text into a token set, [Jaccard] compares two sets.
//   - A [Dict] interns tokens as uint32 ids; [JaccardIDs] compares sorted
//     id sets without allocating.
//   - An [Index] is built once per store load and kept current with
//     [Index.AddIDs] and [Index.Remove]. [Index.Rank] walks the postings of
//     the query tokens; it never recomputes document frequencies.
//   - A [BM25F] index, and [Terms], its tokeniser, rank by this project's
//     ranking; [SearchTerms] reads a query's terms, those of a contrast
//     clause ("…, not the unit tests") excluded.
//   - A [Library] ranks its owner's lessons, read through a [Source]:
//     both rankings' indexes, built on first use and kept current with
//     [Library.Add] and [Library.Remove]; [Library.Search] (ordering,
//     supersession placement, [ConfidenceModel]) and [Library.Decide]
//     (decider, supporters, answer, abstention), with a one-shot path
//     ([Query.Once]) that builds no index and gives the same results; and
//     [Library.MostSimilar], the encoder's duplicate check.
//   - [Cluster] is the anchor clustering: an exact all-pairs similarity join
//     (PPJoin-style prefix and length filters plus 128-bit token
//     signatures) followed by the anchor loop,
//     property-tested equal to the quadratic loop of consolidate.py.
//
// # Exactness
//
// Tokens matches CPython on its str.lower() quirks (testdata/tokens.json
// was produced by CPython). Jaccard values are float64(|a∩b|) /
// float64(|a∪b|), exactly Python's int/int division, and Cluster compares
// the same bits against the threshold as the quadratic loop.
//
// Scores can differ from a given Python process in the last bits, for two
// documented reasons. Python sums idf over a set, in an iteration order
// that changes from process to process (string hash randomisation); Rank
// sums in the query's first-occurrence order, so its results are
// deterministic. And Python's math.log is the platform libm's: the index
// uses a correctly rounded logarithm, which agrees with glibc on all but
// about 0.04% of idf arguments (one ulp apart on those) where Go's
// math.Log is one ulp off on about 9%.
//
// The package has no global mutable state. Index.Rank may run
// concurrently with itself; AddIDs, Remove and Dict interning need
// exclusive access.
package rank
