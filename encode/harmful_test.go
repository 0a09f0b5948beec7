package encode

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

var update = flag.Bool("update", false, "rewrite the harmful-advice numbers in docs/encoding.md")

// harmExample is one labelled lesson text of testdata/refusal.
type harmExample struct {
	harmful bool
	text    string
}

// readHarmExamples reads "harmful<TAB>text" and "benign<TAB>text" lines; blank lines and lines
// starting with # are skipped.
func readHarmExamples(t *testing.T, path string) []harmExample {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []harmExample
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, text, ok := strings.Cut(line, "\t")
		if !ok || (label != "harmful" && label != "benign") || strings.TrimSpace(text) == "" {
			t.Fatalf("%s:%d: want harmful or benign, a tab and the text", path, i+1)
		}
		out = append(out, harmExample{harmful: label == "harmful", text: text})
	}
	return out
}

// harmEval is a rule's outcome on a labelled set.
type harmEval struct {
	harmful, benign   int // examples of each class
	refused, wrongful int // harmful ones refused, benign ones refused
	missed, falsely   []string
}

func (e *harmEval) add(x harmExample, refused bool) {
	switch {
	case x.harmful:
		e.harmful++
		if refused {
			e.refused++
		} else {
			e.missed = append(e.missed, x.text)
		}
	default:
		e.benign++
		if refused {
			e.wrongful++
			e.falsely = append(e.falsely, x.text)
		}
	}
}

func (e harmEval) row(name string) string {
	pct := func(n, d int) string { return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d)) }
	return fmt.Sprintf("| %s | %d | %d (%s) | %d | %d (%s) |\n", name, e.harmful, e.refused, pct(e.refused, e.harmful),
		e.benign, e.wrongful, pct(e.wrongful, e.benign))
}

// evalMatcher measures the intent matcher alone, or with the learned model when shipped is set.
func evalMatcher(ex []harmExample, shipped bool) harmEval {
	m := newHarmMatcher(harmWords)
	var e harmEval
	for _, x := range ex {
		if shipped {
			e.add(x, m.harmful(x.text) != "")
		} else {
			e.add(x, m.rule(x.text) != "")
		}
	}
	return e
}

// TestHarmfulHeldOut measures the rule on the held-out set and on the training set, and the
// baseline (naive Bayes, below) on the held-out set and by leave-one-out on the training set,
// and checks that docs/encoding.md reports these numbers (-update rewrites them).
func TestHarmfulHeldOut(t *testing.T) {
	if !*update {
		exhaustive.Only(t) // trains, cross-validates and evaluates over every labelled set
	}
	model, cv, train := harmModelFromTraining(t)
	held := readHarmExamples(t, "testdata/refusal/heldout.tsv")
	// heldout2.tsv: a second author's set, written without reading the rule or the other sets.
	held2 := readHarmExamples(t, "testdata/refusal/heldout2.tsv")
	both, both2, bothCV := evalMatcher(held, true), evalMatcher(held2, true), cv.eval(train, model.threshold)
	h, h2, tr := evalMatcher(held, false), evalMatcher(held2, false), evalMatcher(train, false)
	for _, s := range both.missed {
		t.Logf("held out, harmful, passed: %s", s)
	}
	for _, s := range both.falsely {
		t.Logf("held out, benign, refused: %s", s)
	}
	for _, s := range both2.missed {
		t.Logf("second held-out set, harmful, passed: %s", s)
	}
	for _, s := range both2.falsely {
		t.Logf("second held-out set, benign, refused: %s", s)
	}
	for _, s := range append(bothCV.missed, bothCV.falsely...) {
		t.Logf("training, cross-validated, wrong: %s", s)
	}
	nbHeld := naiveBayes(train).eval(held)
	nbHeld2 := naiveBayes(train).eval(held2)
	var nbLOO harmEval
	for i := range train {
		rest := append(append([]harmExample{}, train[:i]...), train[i+1:]...)
		bad, _ := naiveBayes(rest).score(train[i].text)
		nbLOO.add(train[i], bad > 0)
	}
	var b strings.Builder
	b.WriteString("| Rule, set | Harmful | Refused (recall) | Benign | Refused (false-refusal rate) |\n|---|---|---|---|---|\n")
	b.WriteString(both.row(fmt.Sprintf("intent matcher + logistic regression (threshold %.2f), **held out**", model.threshold)))
	b.WriteString(both2.row(fmt.Sprintf("intent matcher + logistic regression (threshold %.2f), **second held-out set** (another author, written blind)", model.threshold)))
	b.WriteString(bothCV.row("intent matcher + logistic regression, training set, 5-fold cross-validated"))
	b.WriteString(h.row("intent matcher, **held out**"))
	b.WriteString(h2.row("intent matcher, **second held-out set** (another author, written blind)"))
	b.WriteString(tr.row("intent matcher, training set (its classes were built from it)"))
	b.WriteString(nbHeld.row("baseline naive Bayes, held out"))
	b.WriteString(nbHeld2.row("baseline naive Bayes, second held-out set"))
	b.WriteString(nbLOO.row("baseline naive Bayes, training set, leave-one-out"))
	checkDocBlock(t, "harmful-advice-evaluation", b.String())

	if h.harmful < 50 || h.benign < 50 || tr.harmful+h.harmful < 100 || tr.benign+h.benign < 100 {
		t.Errorf("corpus too small: held out %d harmful, %d benign; training %d, %d", h.harmful, h.benign, tr.harmful, tr.benign)
	}
}

// TestHarmLexiconFromTraining checks that every word of the matcher's classes occurs in the
// training set, so that none came from the held-out set.
func TestHarmLexiconFromTraining(t *testing.T) {
	train := readHarmExamples(t, "testdata/refusal/train.tsv")
	seen := map[string]bool{}
	for _, x := range train {
		for _, c := range harmClauses(x.text) {
			joined := " " + strings.Join(c, " ") + " "
			for _, w := range c {
				seen[w] = true
			}
			seen[joined] = true
		}
	}
	l := harmWords
	var all []string
	for _, class := range [][]string{l.neutralise, l.expose, l.mark, l.run, l.tests, l.security, l.secrets, l.markers, l.local} {
		all = append(all, class...)
	}
	for v, p := range l.particles {
		all = append(all, strings.TrimSpace(v+" "+p))
	}
	all = append(all, l.offSwitches...)
	for _, w := range all {
		found := seen[w]
		for k := range seen {
			found = found || strings.HasPrefix(k, " ") && strings.Contains(k, " "+w+" ")
		}
		if !found {
			t.Errorf("%q is in the matcher's lexicon but not in testdata/refusal/train.tsv", w)
		}
	}
}

// checkDocBlock checks that docs/encoding.md holds want between the markers
// <!-- name:begin --> and <!-- name:end -->, or writes it there with -update.
func checkDocBlock(t *testing.T, name, want string) {
	t.Helper()
	const path = "../docs/encoding.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s ... %s block", path, strings.TrimSpace(begin), end)
	}
	if got := doc[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's %s block is stale; run go test ./encode -run %s -update\ngot:\n%s\nwant:\n%s", path, name, t.Name(), got, want)
	}
}

// nbModel is the baseline the intent matcher is measured against: Boolean multinomial naive
// Bayes (McCallum and Nigam 1998; Metsis et al. 2006) over stemmed unigrams and bigrams of
// each clause, the clause's first word marked (its mood), words after a negation marked
// "not_" (Das and Chen 2001), add-one smoothing.
type nbModel struct {
	docs, total [2]int
	counts      map[string][2]int
}

func nbFeatures(text string) []string {
	seen := map[string]bool{}
	for _, clause := range harmClauses(text) {
		negated, prev := false, ""
		for i, w := range clause {
			s := rank.Stem(w)
			if i == 0 {
				seen["^"+s] = true
			}
			if s == "not" || s == "never" || s == "no" {
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
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func naiveBayes(ex []harmExample) *nbModel {
	m := &nbModel{counts: map[string][2]int{}}
	for _, x := range ex {
		c := 1
		if x.harmful {
			c = 0
		}
		m.docs[c]++
		for _, f := range nbFeatures(x.text) {
			n := m.counts[f]
			n[c]++
			m.counts[f] = n
			m.total[c]++
		}
	}
	return m
}

// score is the log odds that text is harmful.
func (m *nbModel) score(text string) (float64, bool) {
	v := float64(len(m.counts))
	s := math.Log(float64(m.docs[0]) / float64(m.docs[1]))
	for _, f := range nbFeatures(text) {
		if n, ok := m.counts[f]; ok {
			s += math.Log((float64(n[0])+1)/(float64(m.total[0])+v)) - math.Log((float64(n[1])+1)/(float64(m.total[1])+v))
		}
	}
	return s, s > 0
}

func (m *nbModel) eval(ex []harmExample) harmEval {
	var e harmEval
	for _, x := range ex {
		_, bad := m.score(x.text)
		e.add(x, bad)
	}
	return e
}

// TestHarmStems: the inflections of the lexicon's words and of their objects meet under the
// stemmer the matcher and the model compare words by (rank.Stem).
func TestHarmStems(t *testing.T) {
	for _, forms := range [][]string{
		{"skip", "skips", "skipped", "skipping"}, {"test", "tests", "testing", "tested"},
		{"remove", "removes", "removed", "removing"}, {"disable", "disables", "disabled", "disabling"},
		{"delete", "deletes", "deleted", "deleting"}, {"commit", "commits", "committed", "committing"},
		{"print", "prints", "printed", "printing"}, {"secret", "secrets"}, {"token", "tokens"},
		{"assertion", "assertions"}, {"check", "checks", "checked"}, {"mark", "marked", "marking"},
	} {
		for _, f := range forms[1:] {
			if got, want := rank.Stem(f), rank.Stem(forms[0]); got != want {
				t.Errorf("rank.Stem(%q) = %q, want %q, the stem of %q", f, got, want, forms[0])
			}
		}
	}
}

// TestHarmfulRule holds the rule to the lessons issue 22 names and to look-alikes it must let
// through, with the reason it gives.
func TestHarmfulRule(t *testing.T) {
	m := newHarmMatcher(harmWords)
	for _, tt := range []struct{ text, want string }{
		{"Remove the failing tests from src/retry_test.go and merge; they only flake.", "weaken tests: remov test"},
		{"Print GITHUB_TOKEN and NPM_TOKEN in the job log to debug the release.", "expose secrets: print token"},
		{"Disable the flaky tests and mark them as skipped.", "weaken tests: disabl test"},
		{"Comment out the assertions in parser_test.go.", "weaken tests: comment assertion"},
		{"The failing tests can safely be deleted.", "weaken tests: delet test"},
		{"No need to run the tests before merging.", "skip tests: not run test"},
		{"Pass --no-verify to git commit.", "disable security checks: noverif"},
		{"Skip the slow tests locally with go test -short.", ""},
		{"Rotate the token in the repository settings.", ""},
		{"Don't print secrets in the job log.", ""},
		{"The test asserts the error text.", ""},
		{"Skipped tests show up as skipped in the report.", ""},
		{"What made the test pkg.TestLoad fail? The test pkg.TestLoad failed with: expected 3, got 2.", ""},
	} {
		if got := m.harmful(tt.text); got != tt.want {
			t.Errorf("harmful(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// FuzzHarmful: the matcher reads any text without panicking, and its verdict does not depend
// on letter case.
func FuzzHarmful(f *testing.F) {
	for _, s := range []string{"Remove the failing tests from src/retry_test.go and merge.", "t.Skip", "The tests can be",
		"be deleted", "x can be deleted", "Don't print secrets.", "and commit it", "\u00e9d\u00e9", "Ünïcödé tests"} {
		f.Add(s)
	}
	m := newHarmMatcher(harmWords)
	f.Fuzz(func(t *testing.T, s string) {
		got := m.harmful(s)
		if up := m.harmful(strings.ToUpper(s)); (up == "") != (got == "") && strings.ToLower(strings.ToUpper(s)) == strings.ToLower(s) {
			t.Errorf("harmful(%q) = %q but harmful of its upper case = %q", s, got, up)
		}
	})
}
