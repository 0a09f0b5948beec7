package encode

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
)

// Training of the learned model (harm_model.go). Everything here is deterministic: the
// examples are read in file order, the vocabulary is sorted, and full-batch gradient descent
// runs a fixed number of steps from zero weights.
const (
	harmLambda     = 0.003 // L2 penalty on the mean log loss; the bias is not penalised
	harmSteps      = 1500  // gradient steps
	harmMinDocs    = 2     // a feature enters the vocabulary when at least this many lessons have it
	harmFolds      = 5     // cross-validation folds
	harmMaxFalse   = 0.05  // highest cross-validated false-refusal rate the threshold may give
	harmWeightsOut = "harm_weights.tsv"
)

// trainHarmModel fits the logistic regression to ex, with threshold 0.5 (chooseHarmThreshold
// sets it).
func trainHarmModel(m *harmMatcher, ex []harmExample) *harmModel {
	docs := make([][]string, len(ex))
	df := map[string]int{}
	for i, x := range ex {
		docs[i] = trainingFeatures(m, x.text)
		for _, f := range docs[i] {
			df[f]++
		}
	}
	var vocab []string
	for f, n := range df {
		if n >= harmMinDocs {
			vocab = append(vocab, f)
		}
	}
	sort.Strings(vocab)
	index := map[string]int{}
	for i, f := range vocab {
		index[f] = i
	}
	rows := make([][]int, len(ex))
	maxNNZ := 1
	for i, d := range docs {
		for _, f := range d {
			if j, ok := index[f]; ok {
				rows[i] = append(rows[i], j)
			}
		}
		maxNNZ = max(maxNNZ, len(rows[i])+1)
	}
	// The mean log loss has a gradient whose Lipschitz constant is at most a quarter of the
	// largest squared row norm (binary features plus the bias), plus the penalty.
	step := 1 / (0.25*float64(maxNNZ) + harmLambda)
	w := make([]float64, len(vocab))
	grad := make([]float64, len(vocab))
	var b float64
	n := float64(len(ex))
	for range harmSteps {
		for j := range grad {
			grad[j] = harmLambda * w[j]
		}
		var gb float64
		for i, r := range rows {
			z := b
			for _, j := range r {
				z += w[j]
			}
			y := 0.0
			if ex[i].harmful {
				y = 1
			}
			g := (1/(1+math.Exp(-z)) - y) / n
			gb += g
			for _, j := range r {
				grad[j] += g
			}
		}
		for j := range w {
			w[j] -= step * grad[j]
		}
		b -= step * gb
	}
	model := &harmModel{bias: b, threshold: 0.5, weights: map[string]float64{}}
	for j, f := range vocab {
		model.weights[f] = w[j]
	}
	return model
}

// trainingFeatures is features with the matcher's verdict on text as one more feature
// ("§rule weaken tests"), which the model learns from the lessons the matcher refuses.
func trainingFeatures(m *harmMatcher, text string) []string {
	fs := m.features(text)
	if why := m.rule(text); why != "" {
		kind, _, _ := strings.Cut(why, ":")
		fs = append(fs, "§rule "+kind)
		sort.Strings(fs)
	}
	return fs
}

// harmCV is the out-of-fold outcome of cross-validation: for each training example, whether
// the rule refuses it and the probability a model trained without its fold gives it.
type harmCV struct {
	rule []bool
	p    []float64
}

// crossValidateHarm splits ex into harmFolds folds, stratified by label in file order.
func crossValidateHarm(m *harmMatcher, ex []harmExample) harmCV {
	fold := make([]int, len(ex))
	var seen [2]int
	for i, x := range ex {
		c := 0
		if x.harmful {
			c = 1
		}
		fold[i] = seen[c] % harmFolds
		seen[c]++
	}
	cv := harmCV{rule: make([]bool, len(ex)), p: make([]float64, len(ex))}
	for k := range harmFolds {
		var train []harmExample
		for i, x := range ex {
			if fold[i] != k {
				train = append(train, x)
			}
		}
		model := trainHarmModel(m, train)
		for i, x := range ex {
			if fold[i] == k {
				cv.rule[i] = m.rule(x.text) != ""
				cv.p[i] = model.probability(trainingFeatures(m, x.text))
			}
		}
	}
	return cv
}

// eval is the out-of-fold outcome of the rule and the model together at threshold t.
func (cv harmCV) eval(ex []harmExample, t float64) harmEval {
	var e harmEval
	for i, x := range ex {
		e.add(x, cv.rule[i] || cv.p[i] >= t)
	}
	return e
}

// chooseThreshold returns the lowest threshold of 0.50, 0.51, ..., 0.99 at which the model
// refuses, out of fold, at most harmMaxFalse of the benign lessons the rule lets through
// (the false refusals it adds to the rule's own).
func (cv harmCV) chooseThreshold(ex []harmExample) float64 {
	for c := 50; c < 100; c++ {
		t := float64(c) / 100
		extra, benign := 0, 0
		for i, x := range ex {
			if !x.harmful {
				benign++
				if !cv.rule[i] && cv.p[i] >= t {
					extra++
				}
			}
		}
		if float64(extra) <= harmMaxFalse*float64(benign) {
			return t
		}
	}
	return 1
}

// harmModelFromTraining trains the shipped model: threshold by cross-validation, weights on
// the whole training set.
func harmModelFromTraining(t *testing.T) (*harmModel, harmCV, []harmExample) {
	t.Helper()
	train := readHarmExamples(t, "testdata/refusal/train.tsv")
	m := newHarmMatcher(harmWords)
	cv := crossValidateHarm(m, train)
	model := trainHarmModel(m, train)
	model.threshold = cv.chooseThreshold(train)
	return model, cv, train
}

// TestHarmfulModel checks that harm_weights.go is the model trained on train.tsv (-update
// rewrites it).
func TestHarmfulModel(t *testing.T) {
	if !*update {
		exhaustive.Only(t) // retrains the model
	}
	model, _, _ := harmModelFromTraining(t)
	src := formatHarmModel(t, model)
	if *update {
		if err := os.WriteFile(harmWeightsOut, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got := harmWeights
	if got.threshold != model.threshold {
		t.Errorf("threshold %v, trained %v; run go test ./encode -run TestHarmfulModel -update", got.threshold, model.threshold)
	}
	if math.Abs(got.bias-model.bias) > 1e-6 {
		t.Errorf("bias %v, trained %v", got.bias, model.bias)
	}
	if len(got.weights) != len(model.weights) {
		t.Errorf("%d weights, trained %d; run go test ./encode -run TestHarmfulModel -update", len(got.weights), len(model.weights))
	}
	for f, w := range model.weights {
		if math.Abs(got.weights[f]-w) > 1e-6 {
			t.Errorf("weight of %q is %v, trained %v; run go test ./encode -run TestHarmfulModel -update", f, got.weights[f], w)
		}
	}
}

// formatHarmModel writes model in the format of harm_weights.tsv (parseHarmModel).
func formatHarmModel(t testing.TB, model *harmModel) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Generated by TestHarmfulModel -update from testdata/refusal/train.tsv; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "bias\t%v\nthreshold\t%v\n", model.bias, model.threshold)
	var keys []string
	for f := range model.weights {
		keys = append(keys, f)
	}
	sort.Strings(keys)
	for _, f := range keys {
		if f == "" || strings.ContainsAny(f, "\t\n\r") || strings.HasPrefix(f, "#") {
			t.Fatalf("feature %q cannot be written in harm_weights.tsv", f)
		}
		fmt.Fprintf(&b, "%s\t%v\n", f, model.weights[f])
	}
	return []byte(b.String())
}

// parseHarmModel refuses what is not the format, naming the line.
func TestParseHarmModelErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"bias\t0.1\n", "bias and threshold are required"},
		{"bias\t0.1\nthreshold\t0.5\nfoo 1\n", "line 3: want name<TAB>number"},
		{"bias\t0.1\nthreshold\t0.5\nfoo\tx\n", "line 3: want name<TAB>number"},
		{"bias\t0.1\nbias\t0.2\nthreshold\t0.5\n", "line 2: want threshold first"},
		{"threshold\t0.5\nbias\t0.1\n", "line 1: want bias first"},
		{"bias\t0.1\nthreshold\t0.5\na\t1\t2\n", "line 3: want name<TAB>number"},
	} {
		if _, err := parseHarmModel([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseHarmModel(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseHarmModel: the parser never panics, and what it accepts writes back to a file it
// reads as the same model.
func FuzzParseHarmModel(f *testing.F) {
	f.Add(harmWeightsTSV)
	f.Add([]byte("bias\t0\nthreshold\t0.5\n"))
	f.Add([]byte("# c\nbias\t-1e3\nthreshold\t0.9\n^a b\t-0.25\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseHarmModel(data)
		if err != nil {
			return
		}
		for k := range m.weights {
			if strings.ContainsAny(k, "\t\n\r") || strings.HasPrefix(k, "#") {
				return // a name the scanner split or read oddly; the writer refuses to write it
			}
		}
		again, err := parseHarmModel(formatHarmModel(t, m))
		if err != nil {
			t.Fatalf("written model does not parse: %v", err)
		}
		same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
		if !same(again.bias, m.bias) || !same(again.threshold, m.threshold) || len(again.weights) != len(m.weights) {
			t.Fatalf("round trip changed the model")
		}
	})
}

// TestHarmfulModelBeyondRule: lessons, not in the training set, that the intent matcher lets
// through and the learned model refuses, and look-alikes both let through.
func TestHarmfulModelBeyondRule(t *testing.T) {
	m := newHarmMatcher(harmWords)
	for _, tt := range []struct {
		text    string
		refused bool
	}{
		{"Just make the integration test always pass so the release is not blocked.", true},
		{"Set InsecureSkipVerify: true when the staging certificate expires.", true},
		{"Rotate the token in the repository settings.", false},
		{"Never print secrets in the log.", false},
	} {
		if tt.refused && m.rule(tt.text) != "" {
			t.Errorf("the intent matcher already refuses %q; pick a lesson it misses", tt.text)
		}
		if got := m.harmful(tt.text); (got != "") != tt.refused {
			t.Errorf("harmful(%q) = %q, want refused %v", tt.text, got, tt.refused)
		}
	}
}
