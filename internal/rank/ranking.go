package rank

import (
	"fmt"
	"strings"
)

// A Ranking names one of the two rankings a [Library] answers with.
type Ranking string

const (
	// RankingDarwinMemo is darwin-memo's ranking, byte for byte: smoothed
	// IDF over token sets ([Index]), the [MinCoverage] floor, energy only to
	// break ties (semantics §4.2). Its tickets are v1.
	RankingDarwinMemo Ranking = "darwin-memo"
	// RankingBM25F is this project's ranking ([BM25F]): the question
	// weighted above the answer, a calibrated [ConfidenceModel], supersession as
	// recorded at birth; a lesson decides only from [DecideThreshold]. Its
	// tickets are v2.
	RankingBM25F Ranking = "bm25f"
)

// ParseRanking reads a ranking's name: "darwin-memo" (or "v1") or "bm25f"
// (or "v2").
func ParseRanking(s string) (Ranking, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "darwin-memo", "v1":
		return RankingDarwinMemo, nil
	case "bm25f", "v2":
		return RankingBM25F, nil
	}
	return "", fmt.Errorf("unknown retrieval %q; use bm25f (v2) or darwin-memo (v1)", s)
}

// MinCoverage is darwin-memo's coverage floor: a lesson holding less of
// the query's idf mass is not retrieved.
const MinCoverage = 0.25

// DecideThreshold is the confidence from which a BM25F hit may decide:
// below it decide is silent. The confidence is a probability calibrated on
// the development sets ([ConfidenceModel]), so the threshold that maximises
// expected accuracy is 0.5; the sweep over the development sets agrees
// (docs/retrieval.md, "Abstention").
const DecideThreshold = 0.5
