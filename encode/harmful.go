package encode

import (
	"strings"
	"unicode"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// The harmful-advice rule refuses a lesson that tells its reader to weaken, skip or delete
// tests or assertions, to print, echo or send secrets, tokens or credentials, or to disable
// security checks, however it is worded. It is a structured intent matcher: a lesson is
// harmful when one of its clauses is a directive (an imperative, "you can ...", "... is to
// ...", "... should be <done>") whose action verb falls in a harmful class and whose object
// (the noun phrase after the verb, or the subject of a modal passive) falls in the object class
// that verb class harms:
//
//	neutralise (delete, remove, skip, disable, comment out, loosen, ...) x tests, assertions
//	neutralise x security checks (scanner, verification, signature, TLS, permission, ...)
//	expose (print, echo, log, send, post, paste, commit, upload, ...) x secrets, tokens, keys
//	mark or add x skip markers (t.Skip, xfail, pending)
//	a negated run, write or fix x tests ("no need to run the tests")
//	any directive that sets an off switch (--no-verify, -insecure, nosec, allow_failure)
//
// A negated directive ("never print secrets", "do not disable the tests") is not harmful,
// and neither is skipping tests in a local setting ("skip the slow tests locally with
// -short"). Words are compared by their stems (rank.Stem, the ranking's stemmer). The classes were
// built from testdata/refusal/train.tsv (TestHarmLexiconFromTraining checks that every word of
// them occurs there); testdata/refusal/heldout.tsv, written before the rule, measures it
// (docs/encoding.md, section 5). A lesson the matcher lets through is then judged by an
// L2-regularised logistic regression trained on the same set (harm_model.go), whose features
// include the matcher's structured reading of each clause.

// harmLexicon is every word class of the matcher, as written in the training set.
type harmLexicon struct {
	neutralise, expose, mark, run      []string // action verbs
	tests, security, secrets, markers  []string // objects
	offSwitches, local, fillers, stops []string // modifiers and syntax
	particles, complements             map[string]string
	pronouns                           []string
}

// harmWords is the matcher's lexicon. Phrasal verbs ("comment out") are a verb whose
// particle is listed in particles; a verb listed there means nothing without its particle.
var harmWords = harmLexicon{
	neutralise: []string{"delete", "remove", "drop", "comment", "disable", "skip", "ignore", "exclude", "bypass",
		"turn", "weaken", "loosen", "relax", "stub", "quarantine", "reduce", "wrap", "mock", "replace", "make"},
	expose: []string{"print", "echo", "log", "dump", "show", "write", "post", "send", "paste", "upload", "share",
		"email", "commit", "hardcode", "expose", "leak", "include", "forward", "save", "put"},
	mark: []string{"mark", "add", "put", "use"},
	run:  []string{"run", "write", "fix"},
	tests: []string{"test", "tests", "spec", "specs", "suite", "assertion", "assert", "asserts", "expectations",
		"check", "checks", "coverage", "gate"},
	security: []string{"security", "scan", "scanning", "scanner", "codeql", "gosec", "audit", "verification", "signature",
		"checksum", "certificate", "tls", "csrf", "authentication", "authorization", "middleware", "protection",
		"reviews", "hooks", "sandbox", "validation", "dependabot", "alerts", "vulnerability", "limiter", "policy", "factor"},
	secrets: []string{"secret", "secrets", "token", "key", "keys", "password", "credentials", "authorization",
		"env", "environment"},
	markers:     []string{"skip", "skipped", "xfail", "pending"},
	offSwitches: []string{"noverify", "insecure", "nosec", "allow failure", "verify false", "privileged", "write all", "allow all"},
	local:       []string{"locally", "short", "laptops", "debugging"},
	// fillers may precede the verb of a directive: "please just delete ...", "you can delete ...".
	fillers: []string{"please", "just", "simply", "then", "always", "also", "first", "you", "we", "can", "could",
		"should", "must", "may", "need", "to", "instead", "so", "and", "only", "not", "never", "no", "safely",
		"quickly", "better", "permanently", "directly", "anyway", "do"},
	// stops end the object of a verb: prepositions (but "of"), conjunctions that open a clause.
	stops: []string{"into", "on", "at", "to", "for", "with", "by", "before", "after", "during", "when",
		"whenever", "if", "because", "so", "until", "unless", "while", "since", "as", "than", "via", "that", "which",
		"who", "once", "instead", "rather", "regardless", "where", "then", "but"},
	particles: map[string]string{"comment": "out", "turn": "off", "stub": "out"},
	// complements a verb needs to neutralise its object: "make the security job optional".
	complements: map[string]string{"make": "optional"},
	pronouns:    []string{"it", "them", "they", "those", "these"},
}

// harmMatcher is harmWords stemmed into sets.
type harmMatcher struct {
	neutralise, expose, mark, run     map[string]bool
	tests, security, secrets, markers map[string]bool
	offSwitches                       []string // stemmed phrases
	local, fillers, stops             map[string]bool
	particles, complements            map[string]string
	pronouns, negation                map[string]bool
}

func newHarmMatcher(l harmLexicon) *harmMatcher {
	set := func(words []string) map[string]bool {
		s := map[string]bool{}
		for _, w := range words {
			s[rank.Stem(w)] = true
		}
		return s
	}
	m := &harmMatcher{
		neutralise: set(l.neutralise), expose: set(l.expose), mark: set(l.mark), run: set(l.run),
		tests: set(l.tests), security: set(l.security), secrets: set(l.secrets), markers: set(l.markers),
		local: set(l.local), fillers: set(l.fillers), stops: set(l.stops),
		particles: map[string]string{}, complements: map[string]string{},
		pronouns: set(l.pronouns),
		negation: set([]string{"not", "never", "no", "nothing", "nor"}),
	}
	for v, c := range l.complements {
		m.complements[rank.Stem(v)] = rank.Stem(c)
	}
	for _, p := range l.offSwitches {
		var stems []string
		for _, w := range strings.Fields(p) {
			stems = append(stems, rank.Stem(w))
		}
		m.offSwitches = append(m.offSwitches, " "+strings.Join(stems, " ")+" ")
	}
	for v, p := range l.particles {
		m.particles[rank.Stem(v)] = p
	}
	return m
}

// harmful returns why text reads as harmful advice ("expose secrets: print ... token"), or "":
// the intent matcher's reason, else the learned model's (harm_model.go).
func (m *harmMatcher) harmful(text string) string {
	if why := m.rule(text); why != "" {
		return why
	}
	return harmWeights.harmful(m, text)
}

// rule returns the intent matcher's reason to refuse text, or "".
func (m *harmMatcher) rule(text string) string {
	var before []string // stems of the earlier clauses, what a pronoun object may refer to
	for _, clause := range harmClauses(text) {
		why, stems := m.clause(clause, before)
		if why != "" {
			return why
		}
		before = append(before, stems...)
	}
	return ""
}

// clause judges one clause of lower-case words, after the clauses whose stems are before, and
// returns its stems.
func (m *harmMatcher) clause(words, before []string) (string, []string) {
	stems := make([]string, len(words))
	local, negated := false, false
	for i, w := range words {
		stems[i] = rank.Stem(w)
		local = local || m.local[stems[i]]
		negated = negated || m.negation[stems[i]]
	}
	if !negated {
		joined := " " + strings.Join(stems, " ") + " "
		for _, sw := range m.offSwitches {
			if strings.Contains(joined, sw) {
				return "disable security checks: " + strings.TrimSpace(sw), stems
			}
		}
	}
	for i, s := range stems {
		if !m.isVerb(stems, i) {
			continue
		}
		obj, directive, negated := m.frame(words, stems, i)
		if !directive {
			continue
		}
		if m.any(obj, m.pronouns) {
			// "If a test fails, remove it": the pronoun stands for what came before.
			obj = append(append(obj, before...), stems[:i]...)
		}
		if c, ok := m.complements[s]; ok && m.first(stems[i+1:], map[string]bool{c: true}) == "" {
			continue
		}
		if negated {
			if m.run[s] && m.any(obj, m.tests) {
				return "skip tests: not " + s + " " + m.first(obj, m.tests), stems
			}
			continue
		}
		switch {
		case m.neutralise[s] && m.any(obj, m.security):
			return "disable security checks: " + s + " " + m.first(obj, m.security), stems
		case m.neutralise[s] && m.any(obj, m.tests) && !local:
			return "weaken tests: " + s + " " + m.first(obj, m.tests), stems
		case m.expose[s] && m.any(obj, m.secrets):
			return "expose secrets: " + s + " " + m.first(obj, m.secrets), stems
		case m.mark[s] && m.any(stems[i+1:], m.markers) && !local:
			return "skip tests: " + s + " " + m.first(stems[i+1:], m.markers), stems
		}
	}
	return "", stems
}

// isVerb reports whether stems[i] is an action verb of a class, with its particle when it
// needs one.
func (m *harmMatcher) isVerb(stems []string, i int) bool {
	s := stems[i]
	if !m.neutralise[s] && !m.expose[s] && !m.mark[s] && !m.run[s] {
		return false
	}
	if p, ok := m.particles[s]; ok && p != "" {
		return i+1 < len(stems) && stems[i+1] == p
	}
	return true
}

// frame finds the object of the verb at i and whether the verb is used as a directive, and
// a negated one. An active directive has only fillers before its verb ("please delete",
// "you can delete", "no need to run") or is "is/are to <verb>"; its object is the words
// after the verb (and its particle) up to a stop word, at most 8. A modal passive ("can be
// deleted", "should safely be skipped") is a directive about its subject, the words before
// the modal.
func (m *harmMatcher) frame(words, stems []string, i int) (obj []string, directive, negated bool) {
	for _, w := range stems[:i] {
		negated = negated || m.negation[w]
	}
	if participle(words[i]) {
		// modal passive: <subject> <modal> [adverb] be <verb>ed
		for j := i - 1; j >= 1 && j >= i-3; j-- {
			if words[j] != "be" {
				continue
			}
			start := j - 1
			if !m.modal(words[start]) && start >= 1 {
				start--
			}
			if m.modal(words[start]) {
				return stems[:start], true, negated
			}
		}
		return nil, false, false
	}
	if !baseForm(words[i]) {
		return nil, false, false
	}
	directive = true
	for _, w := range stems[:i] {
		if !m.fillers[w] && !m.negation[w] {
			directive = false
		}
	}
	if !directive && i >= 2 && (stems[i-1] == "to" || stems[i-1] == "and" || stems[i-1] == "then") {
		// "is to delete", a purpose ("run env to show every secret"), or a second
		// imperative ("store the password in the file and commit it")
		directive = true
	}
	if !directive {
		return nil, false, false
	}
	j := i + 1
	if p := m.particles[stems[i]]; p != "" {
		j++
	}
	for ; j < len(stems) && len(obj) < 8; j++ {
		if m.stops[stems[j]] {
			break
		}
		obj = append(obj, stems[j])
	}
	return obj, true, negated
}

// participle reports whether a verb is written as a past participle ("deleted", "written").
func participle(w string) bool {
	return strings.HasSuffix(w, "ed") || w == "written" || w == "shown"
}

// baseForm reports whether a verb is written in its base form, the form of an imperative
// ("delete", not "deletes", "deleting" or "deleted").
func baseForm(w string) bool {
	return !participle(w) && !strings.HasSuffix(w, "ing") && (!strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss"))
}

func (m *harmMatcher) modal(w string) bool {
	switch w {
	case "can", "should", "may", "must", "could", "might", "will", "shall":
		return true
	}
	return false
}

func (m *harmMatcher) any(words []string, class map[string]bool) bool {
	return m.first(words, class) != ""
}

func (m *harmMatcher) first(words []string, class map[string]bool) string {
	for _, w := range words {
		if class[w] {
			return w
		}
	}
	return ""
}

// harmClauses lower-cases text, spells "n't" and "cannot" as "not", joins "no-verify" into
// one word, and splits it into clauses (at , ; ! ? and line breaks, and at . and : before white
// space or the end, so "t.Skip" and "api_test.go" stay in their clause) of words: runs of
// letters and digits; "_", "-", "/" and every other character separate words, so
// GITHUB_TOKEN is "github token".
func harmClauses(text string) [][]string {
	t := strings.ToLower(text)
	t = strings.NewReplacer("n't", " not", "n’t", " not", "cannot", "can not", "no-verify", "noverify").Replace(t)
	var clauses [][]string
	var words []string
	var w strings.Builder
	flushWord := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	runes := []rune(t)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			w.WriteRune(r)
		case strings.ContainsRune(",;!?\n", r) || strings.ContainsRune(".:", r) && (i+1 == len(runes) || unicode.IsSpace(runes[i+1])):
			flushWord()
			if len(words) > 0 {
				clauses = append(clauses, words)
				words = nil
			}
		default:
			flushWord()
		}
	}
	flushWord()
	if len(words) > 0 {
		clauses = append(clauses, words)
	}
	return clauses
}
