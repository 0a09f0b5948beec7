package rank

import "math"

// The confidence that the first lesson of a BM25F list answers the query:
// a logistic model (Platt scaling, as score calibration for meta-search
// and query-performance prediction do it) over three features of the list
// and the query,
//
//	confidence = 1 / (1 + exp(−(ConfBias + ConfCoverage·coverage + ConfMargin·coverage·margin + ConfTerms·ln(terms))))
//
// coverage being the share of the query's weight the lesson holds
// (Scored.Coverage), margin how far its score stands above the next
// lesson's, (s1 − s2)/s1, in [0, 1] (0 for every lesson but the first),
// and terms the number of distinct terms of the query (query length, the
// oldest of the query-performance predictors). The margin counts in
// proportion to the coverage: a lesson alone in matching one word of a
// long query is still a poor match. At a given coverage, a longer query
// is more often answered: its matched share holds more words, and the
// questions a store cannot answer are mostly short ones naming an
// attribute of a known thing.
// The coefficients are fitted by maximum likelihood on the development
// probes (lessons' TestDecideThresholdSweep refits them and fails when
// they drift); the target is "the first lesson is the one wanted", so
// an unanswerable query and a wrong first lesson are alike negatives.
const (
	ConfBias     = -2.01
	ConfCoverage = 2.09
	ConfMargin   = 1.76
	ConfTerms    = 0.49
)

// Confidence returns the calibrated probability that a lesson with this
// coverage and margin answers a query of terms distinct terms
// (len(QueryTerms(query))).
func Confidence(coverage, margin float64, terms int) float64 {
	return 1 / (1 + math.Exp(-(ConfBias + ConfCoverage*coverage + ConfMargin*coverage*margin + ConfTerms*QueryLength(terms))))
}

// QueryLength is the query-length feature of Confidence, ln(terms) (0 for
// a query of one term or none).
func QueryLength(terms int) float64 {
	return math.Log(float64(max(1, terms)))
}

// Margin returns (score − next)/score in [0, 1]: how far a score stands
// above the next one (0 when it does not).
func Margin(score, next float64) float64 {
	if score <= 0 {
		return 0
	}
	return min(1, max(0, (score-next)/score))
}
