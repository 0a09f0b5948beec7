package rank

import (
	"cmp"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The confidence that the first lesson of a BM25F list answers the query
// is a logistic model (Platt scaling, as score calibration for meta-search
// and query-performance prediction do it) over two features of the list,
// the words of the query (a bag of words, the classic linear text
// classifier) and whether the lesson's answer can state what the query
// asks (Unstated, answer-type checking):
//
//	confidence = σ(bias + coverage·c + margin·c·m + unstated·u + Σ weight(w) for each distinct word w of the query + opening(q, l))
//
// c being the share of the query's weight the lesson holds
// (Scored.Coverage) and m how far its score stands above the next
// lesson's that may decide and is not its near-duplicate (Query's
// NearDuplicate), (s1 − s2)/s1, in [0, 1] (0 for every lesson but the
// first), and u 1 when the query asks for a quantity, a version or a
// person that the lesson's answer cannot state (Unstated: no digit, no
// version number, no one named), else 0. The margin counts in proportion
// to the coverage: a lesson alone in matching one word of a long query is
// still a poor match. The words
// say how the query is asked ("how do I" against "which region"), which
// the lessons' terms do not: the model knows the words that development
// probes of several sets use often, and no others. opening(q, l) is the
// weight of the pair of words the query and the lesson's question open
// with (Opening): whether the two questions are asked in the same form, as
// FAQ retrieval compares a query's question type with a stored
// question's; "who approves ..." put to "How do I deploy ...?" asks what
// a procedure may not say. The model knows the pairs that development
// probes of several sets show often, and no others.
//
// The coefficients are fitted by maximum likelihood on the development
// probes and written to confidence.txt by lessons'
// TestDecideThresholdSweep -update, which fails when they drift; the
// target is "the first lesson is the one wanted", so an unanswerable
// query and a wrong first lesson are alike negatives.
//
//go:embed confidence.txt
var confidenceText string

// A ConfidenceModel holds the coefficients of the confidence model.
type ConfidenceModel struct {
	Bias, Coverage, Margin float64
	Unstated               float64            // a quantity, version, person or URL asked that the answer cannot state
	Words                  map[string]float64 // by lower-case word
	Openings               map[Opening]float64
}

// An Opening is the pair of words (OpeningWord) a query and a lesson's
// question open with.
type Opening struct{ Query, Question string }

// OpeningWord returns the word a text opens with as the model reads words
// (QueryWords): its first run of letters, lower-cased; "" when it holds
// none.
func OpeningWord(text string) string {
	start := strings.IndexFunc(text, unicode.IsLetter)
	if start < 0 {
		return ""
	}
	end := strings.IndexFunc(text[start:], func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(text) - start
	}
	return strings.ToLower(text[start : start+end])
}

// DefaultConfidence returns the fitted model shipped in confidence.txt.
func DefaultConfidence() ConfidenceModel {
	m, err := ParseConfidenceModel(confidenceText)
	if err != nil {
		panic("rank: confidence.txt: " + err.Error()) // a build defect; TestDefaultConfidence parses it
	}
	return m
}

// ParseConfidenceModel reads a model in the form MarshalText writes:
// comment lines starting with #, then one "name<TAB>value" line each for
// bias, coverage, margin and (optionally, 0 without it) unstated,
// "word<TAB>w<TAB>value" per word and "opening<TAB>q<TAB>l<TAB>value" per
// pair of opening words.
func ParseConfidenceModel(text string) (ConfidenceModel, error) {
	m := ConfidenceModel{Words: map[string]float64{}, Openings: map[Opening]float64{}}
	seen := map[string]bool{}
	for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 {
			return m, fmt.Errorf("line %d: want name, tab, value", n+1)
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return m, fmt.Errorf("line %d: %q is not a number", n+1, f[len(f)-1])
		}
		key := strings.Join(f[:len(f)-1], "\t")
		if seen[key] {
			return m, fmt.Errorf("line %d: %q given twice", n+1, key)
		}
		seen[key] = true
		switch {
		case key == "bias":
			m.Bias = v
		case key == "coverage":
			m.Coverage = v
		case key == "margin":
			m.Margin = v
		case key == "unstated":
			m.Unstated = v
		case len(f) == 3 && f[0] == "word" && f[1] != "":
			m.Words[f[1]] = v
		case len(f) == 4 && f[0] == "opening" && f[1] != "" && f[2] != "":
			m.Openings[Opening{f[1], f[2]}] = v
		default:
			return m, fmt.Errorf("line %d: unknown coefficient %q", n+1, key)
		}
	}
	for _, k := range []string{"bias", "coverage", "margin"} {
		if !seen[k] {
			return m, fmt.Errorf("no %s coefficient", k)
		}
	}
	return m, nil
}

// MarshalText writes the model in the form ParseConfidenceModel reads,
// words in byte order, after a comment header.
func (m ConfidenceModel) MarshalText() ([]byte, error) {
	var b strings.Builder
	b.WriteString("# The confidence model (rank/confidence.go), fitted on the development probes.\n")
	b.WriteString("# Generated by go test ./lessons -run TestDecideThresholdSweep -update; do not edit.\n")
	fmt.Fprintf(&b, "bias\t%.4f\ncoverage\t%.4f\nmargin\t%.4f\nunstated\t%.4f\n", m.Bias, m.Coverage, m.Margin, m.Unstated)
	words := make([]string, 0, len(m.Words))
	for w := range m.Words {
		words = append(words, w)
	}
	slices.Sort(words)
	for _, w := range words {
		fmt.Fprintf(&b, "word\t%s\t%.4f\n", w, m.Words[w])
	}
	openings := make([]Opening, 0, len(m.Openings))
	for o := range m.Openings {
		openings = append(openings, o)
	}
	slices.SortFunc(openings, func(a, b Opening) int {
		return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Question, b.Question))
	})
	for _, o := range openings {
		fmt.Fprintf(&b, "opening\t%s\t%s\t%.4f\n", o.Query, o.Question, m.Openings[o])
	}
	return []byte(b.String()), nil
}

// QueryWords returns the distinct words of a query as the model reads
// them: maximal runs of letters, lower-cased, in byte order.
func QueryWords(query string) []string {
	ws := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) })
	slices.Sort(ws)
	return slices.Compact(ws)
}

// Phrasing returns the sum of the weights of the query's words.
func (m ConfidenceModel) Phrasing(query string) float64 {
	s := 0.0
	for _, w := range QueryWords(query) {
		s += m.Words[w]
	}
	return s
}

// Of returns the calibrated probability that a lesson with this coverage
// and margin answers a query of this phrasing (the weights of the query's
// words and of its Opening with the lesson's question), unstated saying
// that the query asks for a quantity, a version, a person or a URL the
// lesson's answer cannot state.
func (m ConfidenceModel) Of(coverage, margin, phrasing float64, unstated bool) float64 {
	z := m.Bias + m.Coverage*coverage + m.Margin*coverage*margin + phrasing
	if unstated {
		z += m.Unstated
	}
	return 1 / (1 + math.Exp(-z))
}

// Margin returns (score − next)/score in [0, 1]: how far a score stands
// above the next one (0 when it does not).
func Margin(score, next float64) float64 {
	if score <= 0 {
		return 0
	}
	return min(1, max(0, (score-next)/score))
}
