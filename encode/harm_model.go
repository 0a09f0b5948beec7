package encode

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// The learned half of the harmful-advice rule: an L2-regularised logistic regression (Cox
// 1958; the regularised form as in Hastie, Tibshirani and Friedman, The Elements of
// Statistical Learning, section 4.4.4) over the features harmMatcher.features returns: stemmed unigrams
// and bigrams of each clause, words after a negation marked "not_" (Das and Chen 2001), the
// clause's first word (its mood), and the intent matcher's structured reading of the clause
// (verb class x object class, negated or not, directive or not, local, off switches). Its
// weights, in harm_weights.tsv (embedded, read by harm_weights.go), are trained on testdata/refusal/train.tsv by
// TestHarmfulModel (-update rewrites them), which also chooses the threshold by 5-fold
// cross-validation on that set, as the lowest at which the rule and the model together refuse
// at most 5 % of its benign lessons. A lesson the intent matcher lets through is refused when
// the model's probability that it is harmful reaches the threshold.

// harmModel is a trained logistic regression.
type harmModel struct {
	bias, threshold float64
	weights         map[string]float64
}

// probability is the model's probability that the lesson with these features is harmful.
func (h *harmModel) probability(features []string) float64 {
	z := h.bias
	for _, f := range features {
		z += h.weights[f]
	}
	return 1 / (1 + math.Exp(-z))
}

// harmful returns the model's reason to refuse text, naming the features that weigh most
// toward refusing it, or "".
func (h *harmModel) harmful(m *harmMatcher, text string) string {
	fs := m.features(text)
	p := h.probability(fs)
	if p < h.threshold {
		return ""
	}
	sort.SliceStable(fs, func(i, j int) bool { return h.weights[fs[i]] > h.weights[fs[j]] })
	var top []string
	for _, f := range fs {
		if len(top) == 3 || h.weights[f] <= 0 {
			break
		}
		top = append(top, f)
	}
	return fmt.Sprintf("learned model, p=%.2f: %s", p, strings.Join(top, ", "))
}

// features returns the sorted, distinct features of text: per clause, the stemmed words and
// pairs of adjacent words ("not_" before each word after a negation), "^" and the first
// word, and the matcher's reading of the clause, written "§...". Training adds one more, the
// matcher's verdict on the whole text (trainingFeatures); the model only ever judges text the
// matcher let through, which has none.
func (m *harmMatcher) features(text string) []string {
	seen := map[string]bool{}
	for _, clause := range harmClauses(text) {
		negated, prev := false, ""
		for i, w := range clause {
			s := rank.Stem(w)
			if i == 0 {
				seen["^"+s] = true
			}
			if m.negation[s] {
				negated, prev = true, ""
				continue
			}
			if negated {
				s = "not_" + s
			}
			seen[s] = true
			if prev != "" {
				seen[prev+" "+s] = true
			}
			prev = s
		}
		for _, f := range m.reading(clause) {
			seen[f] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// reading is the matcher's structured reading of one clause: for each verb of a class, its
// class crossed with each object class of its object ("§neutralise x tests"), prefixed
// "not " when the directive is negated and "report " when the verb is not used as a
// directive; "§local" for a local setting and "§off switch" for an off switch.
func (m *harmMatcher) reading(words []string) []string {
	stems := make([]string, len(words))
	var out []string
	for i, w := range words {
		stems[i] = rank.Stem(w)
		if m.local[stems[i]] {
			out = append(out, "§local")
		}
	}
	joined := " " + strings.Join(stems, " ") + " "
	for _, sw := range m.offSwitches {
		if strings.Contains(joined, sw) {
			out = append(out, "§off switch")
		}
	}
	verbs := []struct {
		name  string
		class map[string]bool
	}{{"neutralise", m.neutralise}, {"expose", m.expose}, {"mark", m.mark}, {"run", m.run}}
	objects := []struct {
		name  string
		class map[string]bool
	}{{"tests", m.tests}, {"security", m.security}, {"secrets", m.secrets}, {"markers", m.markers}}
	for i := range stems {
		if !m.isVerb(stems, i) {
			continue
		}
		obj, directive, negated := m.frame(words, stems, i)
		mode := ""
		switch {
		case !directive:
			mode, obj = "report ", stems[i+1:]
		case negated:
			mode = "not "
		}
		for _, v := range verbs {
			if !v.class[stems[i]] {
				continue
			}
			for _, o := range objects {
				if m.any(obj, o.class) {
					out = append(out, "§"+mode+v.name+" x "+o.name)
				}
			}
		}
	}
	return out
}
