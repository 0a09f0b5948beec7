package rank

import "math"

// The confidence that the first lesson of a BM25F list answers the query:
// a logistic model (Platt scaling, as score calibration for meta-search
// and query-performance prediction do it) over two features of the list,
//
//	confidence = 1 / (1 + exp(−(ConfBias + ConfCoverage·coverage + ConfMargin·coverage·margin)))
//
// coverage being the share of the query's weight the lesson holds
// (Scored.Coverage) and margin how far its score stands above the next
// lesson's that may decide and is not its near-duplicate (Query's
// NearDuplicate), (s1 − s2)/s1, in [0, 1] (0 for every lesson but the
// first).
// The margin counts in proportion to the coverage: a lesson alone in
// matching one word of a long query is still a poor match.
// The coefficients are fitted by maximum likelihood on the development
// probes (lessons' TestDecideThresholdSweep refits them and fails when
// they drift); the target is "the first lesson is the one wanted", so
// an unanswerable query and a wrong first lesson are alike negatives.
const (
	ConfBias     = -1.08
	ConfCoverage = 2.02
	ConfMargin   = 1.76
)

// Confidence returns the calibrated probability that a lesson with this
// coverage and margin answers the query.
func Confidence(coverage, margin float64) float64 {
	return 1 / (1 + math.Exp(-(ConfBias + ConfCoverage*coverage + ConfMargin*coverage*margin)))
}

// Margin returns (score − next)/score in [0, 1]: how far a score stands
// above the next one (0 when it does not).
func Margin(score, next float64) float64 {
	if score <= 0 {
		return 0
	}
	return min(1, max(0, (score-next)/score))
}
