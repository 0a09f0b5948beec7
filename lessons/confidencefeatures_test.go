package lessons

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// The candidate features of rank.Confidence that docs/retrieval.md reports
// as tried: each one added to the model, fitted and scored
// leave-one-set-out on the development sets, as TestDecideThresholdSweep
// scores the model that ships.
//
//	go test ./lessons -run TestConfidenceFeatures -v -confidencefeatures
var confidenceFeatures = flag.Bool("confidencefeatures", false, "log the leave-one-set-out accuracy of candidate confidence features")

// A featureProbe is what the candidates read of one development probe.
type featureProbe struct {
	set, query string
	abstain    bool
	lessons    int            // living lessons in its store
	storeTerms int            // terms in its store, repeats included
	df         map[string]int // lessons of its store holding each term
	terms      []featureTerm
	seq        []string     // the query's terms in order, repeats included
	hits       []featureHit // Retrieve's first 10
}

type featureTerm struct {
	term    string
	weight  float64 // rank.BM25F's weight
	df, cf  int     // lessons holding it; its count in the store
	matched bool    // the first lesson that may decide holds it
}

type featureHit struct {
	question        string
	answer          string
	q, a            []string // the question's and answer's terms in order
	score, coverage float64
	superseded      bool
	wanted          bool
}

// holds reports whether the lesson holds term in either field.
func (h featureHit) holds(term string) bool {
	return slices.Contains(h.q, term) || slices.Contains(h.a, term)
}

func collectFeatureProbes(t *testing.T) (sets []string, out []featureProbe) {
	t.Helper()
	for _, dir := range devSets() {
		sets = append(sets, filepath.Base(dir))
	}
	forEachDevStore(t, func(set string, p evalPack, s *Store, key map[string]string) {
		x := rank.NewBM25F()
		var docs [][]string
		storeTerms := 0
		df := map[string]int{}
		for _, e := range s.living {
			x.Add(e.Question, e.Answer)
			d := append(rank.Terms(e.Question), rank.Terms(e.Answer)...)
			docs = append(docs, d)
			storeTerms += len(d)
			seen := map[string]bool{}
			for _, term := range d {
				if !seen[term] {
					seen[term] = true
					df[term]++
				}
			}
		}
		for _, pr := range p.Probes {
			hits, err := s.Retrieve(pr.Query, RetrieveOptions{Retrieval: RetrievalBM25F, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			fp := featureProbe{set: set, query: pr.Query, abstain: pr.Abstain, lessons: len(s.living), storeTerms: storeTerms, df: df, seq: rank.Terms(pr.Query)}
			for _, h := range hits {
				fp.hits = append(fp.hits, featureHit{question: h.Entry.Question, answer: h.Entry.Answer, q: rank.Terms(h.Entry.Question), a: rank.Terms(h.Entry.Answer),
					score: h.Score, coverage: h.Coverage, superseded: h.SupersededBy != "", wanted: slices.Contains(pr.Want, key[h.Entry.ID])})
			}
			first, _ := fp.firstTwo()
			q := rank.QueryTerms(pr.Query)
			for i, w := range x.Weights(q) {
				ft := featureTerm{term: q[i].Term, weight: w}
				for _, d := range docs {
					c := 0
					for _, term := range d {
						if term == ft.term {
							c++
						}
					}
					ft.cf += c
					if c > 0 {
						ft.df++
					}
				}
				ft.matched = first >= 0 && fp.hits[first].holds(ft.term)
				fp.terms = append(fp.terms, ft)
			}
			out = append(out, fp)
		}
	})
	return sets, out
}

// firstTwo returns the positions of the first two listed lessons that may
// decide (-1 for none).
func (p featureProbe) firstTwo() (first, next int) {
	first, next = -1, -1
	for i, h := range p.hits {
		switch {
		case h.superseded:
		case first < 0:
			first = i
		default:
			return first, i
		}
	}
	return first, next
}

// features are every candidate's inputs for one probe, of its first
// lesson that may decide.
type features struct {
	coverage, margin float64
	queryLength      float64 // ln(distinct query terms)
	questionCoverage float64 // the query's weight held by the question alone, over the query's
	maxUnmatched     float64 // heaviest query term the lesson lacks
	maxUnmatchedRel  float64 // ... over the query's weight
	maxUnmatchedSeen float64 // heaviest the lesson lacks that some lesson holds
	unseenShare      float64 // the query's weight no lesson holds, over the query's
	bigrams          float64 // the query's adjacent term pairs adjacent in the lesson, over its pairs
	questionShare    float64 // the lesson's question terms the query holds, over the question's
	unweighted       float64 // matched query terms over query terms
	coverageRest     float64 // coverage without the heaviest matched term
	matched, missed  float64 // matched and unmatched query terms
	minMatched       float64 // the lightest matched term's weight
	minMatchedNorm   float64 // ... over IDF(df 0)
	storeSize        float64 // ln(living lessons)
	nqc              float64 // standard deviation of the top five scores over the first
	wig              float64 // the first score over the query's weight and the root of its length
	coverageMargin3  float64 // coverage times the margin over the third lesson
	nextCoverage     float64 // the next lesson's coverage
	likelihood       float64 // Dirichlet query likelihood over the background, per query term
	likelihoodMargin float64 // ... less the best other lesson's
	chainCoverage    float64 // coverage of the lesson with the lessons it supersedes
	functionWords    float64 // Jaccard of the query's and the question's function words
	unseenWeighted   [5]float64
	powered          [3]float64
}

// unseenFactors and powers are the coverage weightings tried: a word no
// lesson holds weighs its weight times a factor; every weight is raised to
// a power.
var (
	unseenFactors = [5]float64{0.25, 0.5, 0.75, 1.5, 2}
	powers        = [3]float64{0.5, 1.5, 2}
)

func (p featureProbe) features() (f features, ok bool) {
	first, next := p.firstTwo()
	f.queryLength = math.Log(float64(max(1, len(p.terms))))
	if first < 0 {
		return f, false
	}
	h := p.hits[first]
	f.coverage, f.margin = h.coverage, 1
	if next >= 0 {
		f.margin = rank.Margin(h.score, p.hits[next].score)
		f.nextCoverage = p.hits[next].coverage
	}
	total, inQuestion, matched, unseen, maxMatched := 0.0, 0.0, 0.0, 0.0, 0.0
	f.minMatched = math.Inf(1)
	for _, q := range p.terms {
		total += q.weight
		if slices.Contains(h.q, q.term) {
			inQuestion += q.weight
		}
		if q.df == 0 {
			unseen += q.weight
		}
		if q.matched {
			matched += q.weight
			f.matched++
			f.minMatched = min(f.minMatched, q.weight)
			maxMatched = max(maxMatched, q.weight)
			continue
		}
		f.missed++
		f.maxUnmatched = max(f.maxUnmatched, q.weight)
		if q.df > 0 {
			f.maxUnmatchedSeen = max(f.maxUnmatchedSeen, q.weight)
		}
	}
	if math.IsInf(f.minMatched, 1) {
		f.minMatched = 0
	}
	f.minMatchedNorm = f.minMatched / rank.IDF(0, p.lessons)
	f.storeSize = math.Log(float64(p.lessons))
	if total > 0 {
		f.questionCoverage, f.maxUnmatchedRel, f.unseenShare = inQuestion/total, f.maxUnmatched/total, unseen/total
		f.unweighted = f.matched / float64(len(p.terms))
		f.wig = h.score / total / math.Sqrt(float64(len(p.terms)))
	}
	if total > maxMatched {
		f.coverageRest = (matched - maxMatched) / (total - maxMatched)
	}
	pairs, adjacent := 0, 0
	for k := 0; k+1 < len(p.seq); k++ {
		pairs++
		if hasPair(h.q, p.seq[k], p.seq[k+1]) || hasPair(h.a, p.seq[k], p.seq[k+1]) {
			adjacent++
		}
	}
	if pairs > 0 {
		f.bigrams = float64(adjacent) / float64(pairs)
	}
	held := 0
	for _, term := range h.q {
		if slices.ContainsFunc(p.terms, func(q featureTerm) bool { return q.term == term }) {
			held++
		}
	}
	if len(h.q) > 0 {
		f.questionShare = float64(held) / float64(len(h.q))
	}
	var top []float64
	for _, o := range p.hits {
		if !o.superseded && len(top) < 5 {
			top = append(top, o.score)
		}
	}
	f.nqc = stddev(top) / h.score
	f.coverageMargin3 = f.coverage
	if len(top) >= 3 {
		f.coverageMargin3 = f.coverage * rank.Margin(h.score, top[2])
	}
	f.likelihood = p.likelihood(h)
	other := math.Inf(-1)
	for i, o := range p.hits {
		if i != first && !o.superseded {
			other = max(other, p.likelihood(o))
		}
	}
	if !math.IsInf(other, -1) {
		f.likelihoodMargin = f.likelihood - other
	}
	chain := []featureHit{h}
	for k := first + 1; k < len(p.hits) && p.hits[k].superseded; k++ {
		chain = append(chain, p.hits[k])
	}
	f.chainCoverage = p.coverageOf(func(q featureTerm) float64 { return q.weight }, func(term string) bool {
		return slices.ContainsFunc(chain, func(c featureHit) bool { return c.holds(term) })
	})
	f.functionWords = jaccard(functionWords(p.query), functionWords(h.question))
	for i, a := range unseenFactors {
		f.unseenWeighted[i] = p.coverageOf(func(q featureTerm) float64 {
			if q.df == 0 {
				return a * q.weight
			}
			return q.weight
		}, h.holds)
	}
	for i, g := range powers {
		f.powered[i] = p.coverageOf(func(q featureTerm) float64 { return math.Pow(q.weight, g) }, h.holds)
	}
	return f, true
}

// coverageOf is the share of the query's weight (by weight) that holds
// says is matched.
func (p featureProbe) coverageOf(weight func(featureTerm) float64, holds func(string) bool) float64 {
	num, den := 0.0, 0.0
	for _, q := range p.terms {
		w := weight(q)
		den += w
		if holds(q.term) {
			num += w
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// likelihood is the query's log-likelihood under the lesson's language
// model, Dirichlet-smoothed (μ = 50) with the store's, over the store's
// alone, per query term (Zhai and Lafferty, 2001).
func (p featureProbe) likelihood(h featureHit) float64 {
	const mu = 50.0
	n := len(h.q) + len(h.a)
	sum := 0.0
	for _, q := range p.terms {
		tf := 0
		for _, d := range [2][]string{h.q, h.a} {
			for _, term := range d {
				if term == q.term {
					tf++
				}
			}
		}
		pc := (float64(q.cf) + 0.5) / float64(p.storeTerms+1)
		sum += math.Log((float64(tf)+mu*pc)/(float64(n)+mu)) - math.Log(pc)
	}
	return sum / float64(max(1, len(p.terms)))
}

func hasPair(seq []string, a, b string) bool {
	for k := 0; k+1 < len(seq); k++ {
		if seq[k] == a && seq[k+1] == b {
			return true
		}
	}
	return false
}

func stddev(xs []float64) float64 {
	mu := 0.0
	for _, x := range xs {
		mu += x
	}
	mu /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mu) * (x - mu)
	}
	return math.Sqrt(v / float64(len(xs)))
}

// functionWords returns the words of text that yield no term (the
// tokeniser's stopwords and lone letters).
func functionWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') }) {
		if len(rank.Terms(w)) == 0 {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	if u := len(a) + len(b) - inter; u > 0 {
		return float64(inter) / float64(u)
	}
	return 0
}

func TestConfidenceFeatures(t *testing.T) {
	if !*confidenceFeatures {
		t.Skip("run with -confidencefeatures")
	}
	sets, probes := collectFeatureProbes(t)
	base := func(f features) []float64 { return []float64{1, f.coverage, f.coverage * f.margin} }
	shipped := func(f features) []float64 { return append(base(f), f.queryLength) }
	with := func(model func(features) []float64, more func(f features) []float64) func(features) []float64 {
		return func(f features) []float64 { return append(model(f), more(f)...) }
	}
	one := func(x func(features) float64) func(features) []float64 {
		return func(f features) []float64 { return []float64{x(f)} }
	}
	candidates := []struct {
		name  string
		model func(features) []float64
	}{
		{"coverage, coverage·margin", base},
		{"+ query length (shipped)", shipped},
		{"+ query length as a count", with(base, one(func(f features) float64 { return math.Exp(f.queryLength) }))},
		{"+ question-field coverage", with(base, one(func(f features) float64 { return f.questionCoverage }))},
		{"+ query length + question-field coverage", with(shipped, one(func(f features) float64 { return f.questionCoverage }))},
		{"+ heaviest unmatched weight", with(base, one(func(f features) float64 { return f.maxUnmatched }))},
		{"+ heaviest unmatched over the query's", with(base, one(func(f features) float64 { return f.maxUnmatchedRel }))},
		{"+ heaviest unmatched some lesson holds", with(base, one(func(f features) float64 { return f.maxUnmatchedSeen }))},
		{"+ unseen share", with(base, one(func(f features) float64 { return f.unseenShare }))},
		{"+ bigrams", with(base, one(func(f features) float64 { return f.bigrams }))},
		{"+ query length + bigrams", with(shipped, one(func(f features) float64 { return f.bigrams }))},
		{"+ question terms the query holds", with(base, one(func(f features) float64 { return f.questionShare }))},
		{"+ unweighted coverage", with(base, one(func(f features) float64 { return f.unweighted }))},
		{"+ coverage without the heaviest", with(base, one(func(f features) float64 { return f.coverageRest }))},
		{"+ matched and missed counts", with(base, func(f features) []float64 { return []float64{f.matched, f.missed} })},
		{"+ lightest matched weight", with(base, one(func(f features) float64 { return f.minMatched }))},
		{"+ lightest matched over IDF(0)", with(base, one(func(f features) float64 { return f.minMatchedNorm }))},
		{"+ ln(store size)", with(base, one(func(f features) float64 { return f.storeSize }))},
		{"+ query length + NQC", with(shipped, one(func(f features) float64 { return f.nqc }))},
		{"+ query length + WIG", with(shipped, one(func(f features) float64 { return f.wig }))},
		{"+ query length + coverage·margin over the third", with(shipped, one(func(f features) float64 { return f.coverageMargin3 }))},
		{"+ query length + next coverage", with(shipped, one(func(f features) float64 { return f.nextCoverage }))},
		{"+ query length + likelihood", with(shipped, one(func(f features) float64 { return f.likelihood }))},
		{"+ query length + likelihood margin", with(shipped, one(func(f features) float64 { return f.likelihoodMargin }))},
		{"chain coverage, + query length", func(f features) []float64 {
			return []float64{1, f.chainCoverage, f.chainCoverage * f.margin, f.queryLength}
		}},
		{"+ query length + function words", with(shipped, one(func(f features) float64 { return f.functionWords }))},
	}
	for i, a := range unseenFactors {
		candidates = append(candidates, struct {
			name  string
			model func(features) []float64
		}{fmt.Sprintf("unseen weight ×%.2f, + query length", a), func(f features) []float64 {
			c := f.unseenWeighted[i]
			return []float64{1, c, c * f.margin, f.queryLength}
		}})
	}
	for i, g := range powers {
		candidates = append(candidates, struct {
			name  string
			model func(features) []float64
		}{fmt.Sprintf("weights^%.1f, + query length", g), func(f features) []float64 {
			c := f.powered[i]
			return []float64{1, c, c * f.margin, f.queryLength}
		}})
	}
	candidates = append(candidates, struct {
		name  string
		model func(features) []float64
	}{"all of the above", func(f features) []float64 {
		return []float64{1, f.coverage, f.coverage * f.margin, f.queryLength, f.questionCoverage, f.maxUnmatchedRel, f.unseenShare,
			f.questionShare, f.bigrams, f.nextCoverage, f.minMatchedNorm, f.unweighted, f.margin, f.nqc, f.functionWords, f.chainCoverage, f.coverageRest}
	}})
	var b strings.Builder
	fmt.Fprintf(&b, "| features | mean |")
	for _, s := range sets {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(sets)) + "\n")
	for _, c := range candidates {
		var ex []fitExample
		for _, p := range probes {
			f, hit := p.features()
			first, _ := p.firstTwo()
			ex = append(ex, fitExample{set: p.set, x: c.model(f), hit: hit, right: first >= 0 && p.hits[first].wanted, abstain: p.abstain})
		}
		acc, mean := leaveOneSetOut(sets, ex)
		fmt.Fprintf(&b, "| %s | %.3f |", c.name, mean)
		for _, a := range acc {
			fmt.Fprintf(&b, " %.3f |", a)
		}
		b.WriteString("\n")
	}
	t.Log("leave-one-set-out decide accuracy by candidate model:\n" + b.String())
}
