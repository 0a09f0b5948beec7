package lexrank

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// v3 query-side tables (docs/retrieval.md, "What v3 changes"). They apply
// to the query only, so the index (and v2's ranking over it) is unchanged.

// synonymGroups are software-domain abbreviations and synonyms: a query
// word no lesson holds is looked up under the other words of its group.
// Each line is one group; the first words are tried first.
const synonymGroups = `
e2e end-to-end
database db
environment env
configuration config configure configs
repository repo repos
release publish ship
dependency dependencies deps dep
kubernetes k8s kube
production prod
development dev
directory dir
package pkg
documentation docs doc
variable var vars
authentication auth
authorization authz
incident inc
lint linter linting
log logging logger
test tests testing spec
`

// synonyms maps a stem to the stems of the other words of its groups.
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(synonymGroups, "\n") {
		var stems []string
		for _, w := range strings.Fields(line) {
			stems = append(stems, synonymStem(w))
		}
		for i, a := range stems {
			for j, b := range stems {
				if i != j && a != b && !contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	return m
}()

// synonymStem is the term a table word stands for: a hyphenated word is
// the single term "end-to-end" becomes after rewriting (see rewriteQuery).
func synonymStem(w string) string {
	if strings.Contains(w, "-") {
		return strings.ReplaceAll(w, "-", "")
	}
	return Stem(w)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Synonyms returns the stems of the table words standing for the same
// thing as stem (nil when it has none).
func Synonyms(stem string) []string { return synonyms[stem] }

var months = map[string]string{"january": "01", "february": "02", "march": "03", "april": "04",
	"june": "06", "july": "07", "august": "08", "september": "09", "october": "10",
	"november": "11", "december": "12", "jan": "01", "feb": "02", "mar": "03", "apr": "04",
	"jun": "06", "jul": "07", "aug": "08", "sep": "09", "sept": "09", "oct": "10", "nov": "11", "dec": "12"}

// rewriteQuery prepares a query for v3: hyphenated phrases of the synonym
// table become one word ("end-to-end" → "endtoend"), and a month name
// followed by a day ("April 12", "May 3rd") becomes the month-day of an
// ISO date ("04-12"), as lessons write dates.
func rewriteQuery(q string) string {
	low := strings.ToLower(q)
	if strings.Contains(low, "end-to-end") {
		for {
			i := strings.Index(strings.ToLower(q), "end-to-end")
			if i < 0 {
				break
			}
			q = q[:i] + "endtoend" + q[i+len("end-to-end"):]
		}
	}
	f := strings.Fields(q)
	changed := false
	for i := 0; i+1 < len(f); i++ {
		m := strings.ToLower(strings.TrimRight(f[i], ".,"))
		mm, ok := months[m]
		if m == "may" {
			mm, ok = "05", true
		}
		if !ok {
			continue
		}
		d := strings.TrimRight(f[i+1], ".,?!;:")
		punct := f[i+1][len(d):]
		d = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(d, "st"), "nd"), "rd"), "th")
		if len(d) == 0 || len(d) > 2 || strings.Trim(d, "0123456789") != "" {
			continue
		}
		if len(d) == 1 {
			d = "0" + d
		}
		f[i], f[i+1] = "", mm+"-"+d+punct
		changed = true
	}
	if changed {
		q = strings.Join(slices.DeleteFunc(f, func(w string) bool { return w == "" }), " ")
	}
	return q
}

// identifierStems returns the stems of the query's words that are parts of
// an identifier, a path or a file name: words joined to another by "-",
// "_", "/" or "." ("shipping-api", "pkg/raft", "scheduler_test.go") and
// the parts of a camelCase word ("TestLeaderElection"). Such a word names
// a thing; a plain word ("repo", "suite") is how someone put it.
func identifierStems(q string) map[string]bool {
	var out map[string]bool
	for _, run := range strings.Fields(q) {
		run = strings.TrimFunc(run, func(r rune) bool { return !isWordRune(r) })
		if run == "" {
			continue
		}
		joined, camel := false, false
		var prev rune
		for i, r := range run {
			if i > 0 && (r == '-' || r == '_' || r == '/' || r == '.') {
				if n, _ := utf8.DecodeRuneInString(run[i+1:]); isWordRune(n) && isWordRune(prev) {
					joined = true
				}
			}
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				camel = true
			}
			prev = r
		}
		if !joined && !camel {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		each(run, func(t Term) { out[t.Stem] = true })
	}
	return out
}

// QuestionDF counts the live documents whose question holds stem, up to
// limit (limit <= 0: all of them).
func (x *Index) QuestionDF(stem string, limit int) int {
	if x.shards != nil {
		// A BuildFor index: every document is live, and each shard counts
		// its documents whose question holds a term.
		n := int(x.shardQDF(stem))
		if limit > 0 {
			n = min(n, limit)
		}
		return n
	}
	id, ok := x.id(stem)
	if !ok {
		return 0
	}
	n := 0
	for _, p := range x.post[id] {
		if p.q > 0 && x.live[p.doc] {
			n++
			if n == limit {
				break
			}
		}
	}
	return n
}

// alternates are the stems v3 tries, in order, for a query term no lesson
// holds: the word cut more gently (the light stemmer over-strips some
// words: "adding" → "ad", "string" → "str"), then its software-domain
// synonyms and abbreviations.
func alternates(t Term) []string {
	alts := synonyms[t.Stem]
	if r := rawStem(t.Raw); r != t.Stem {
		alts = append([]string{r}, alts...)
	}
	return append(alts, derivedStems(t.Raw)...)
}

// rawStem is a gentler stem of a query word the index does not know under
// its Stem: an "-ing" or "-ed" ending cut without undoubling ("adding" →
// "add"), or the word itself ("string").
func rawStem(raw string) string {
	for _, suf := range []string{"ing", "ed"} {
		if b, ok := strings.CutSuffix(raw, suf); ok && len(b) >= 3 {
			return b
		}
	}
	return raw
}

// valueStems returns the numbers of the query that are quantities rather
// than names: a number followed by "%" ("76% coverage"). A quantity no
// lesson holds is a value asked about, not an unknown incident or version.
func valueStems(q string) map[string]bool {
	var out map[string]bool
	for i := 0; i < len(q); i++ {
		if q[i] != '%' || i == 0 || !isDigitASCII(q[i-1]) {
			continue
		}
		j := i
		for j > 0 && (isDigitASCII(q[j-1]) || q[j-1] == '.') {
			j--
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[strings.Trim(q[j:i], ".")] = true
	}
	// A count: a number standing alone (a "k" or "m" for thousands or
	// millions at most) followed by a plural noun ("40k jobs", "128
	// ranks"). An incident, a port or a version is written before its
	// number ("INC-4410", "port 8081", "v4.2"), not counted by it.
	fields := strings.Fields(q)
	for i := 0; i+1 < len(fields); i++ {
		w := strings.TrimLeft(fields[i], "(~")
		n := strings.TrimRight(strings.TrimRight(w, "km"), "0123456789")
		if n != "" || w == "" || !isDigitASCII(w[0]) {
			continue
		}
		if !isCountNoun(fields[i+1]) {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[w] = true
	}
	return out
}

// isCountNoun reports whether w is a plain lower-case plural word ("jobs",
// "ranks"), the thing a number before it counts.
func isCountNoun(w string) bool {
	w = strings.TrimRight(w, ",.;:?!)")
	if len(w) < 4 || w[len(w)-1] != 's' || strings.HasSuffix(w, "ss") {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// derivSuffixes are derivational endings of English software vocabulary
// (serialization / serializer / serialize, optimisation / optimised).
var derivSuffixes = []string{"ization", "isation", "ations", "ation", "izers", "isers", "izer", "iser",
	"izing", "ising", "ized", "ised", "izes", "ises", "ize", "ise", "ers", "er", "ions", "ion", "ment", "ments"}

// derivedStems returns the stems of other derivations of a query word no
// lesson holds, for v3's lookup: the word's base (its ending cut) with
// each derivational ending and bare ("serialization" → serial, serialize,
// serializer, ...). Only words of seven letters or more with a base of
// four or more are derived, so short words do not meet unrelated ones.
func derivedStems(raw string) []string {
	if len(raw) < 7 {
		return nil
	}
	var out []string
	add := func(w string) {
		st := Stem(w)
		if st != "" && !contains(out, st) {
			out = append(out, st)
		}
	}
	for _, suf := range derivSuffixes {
		base, ok := strings.CutSuffix(raw, suf)
		if !ok || len(base) < 4 {
			continue
		}
		for _, s2 := range []string{"ization", "isation", "izer", "iser", "ize", "ise", "ized", "ised", "er", "ion", "ation", "ment"} {
			if s2 != suf {
				add(base + s2)
			}
		}
		add(base)
		break
	}
	return out
}

// capitalSeen is how many distinctive terms some lesson holds (a smoothed
// idf of at least half an unknown term's) a short query must name besides
// an unknown capitalised word for that word not to silence it.
const capitalSeen = 3

// capitalSilences reports whether an unknown capitalised word in a short
// query silences it (v3): when the query names fewer than capitalSeen
// distinctive terms the store knows, the word is what it asks about, as in
// v2; with more, the rest of the query identifies a lesson ("a KelpCluster
// is stuck Terminating with a finalizer"), and the word weighs fully in the
// coverage as a thing the store does not know (Result.Unseen).
func capitalSilences(q []queryTerm, n float64) bool {
	top := math.Log(1 + n)
	seen := 0
	for _, t := range q {
		if t.seen && t.w >= 0.5*top && !Phrasing(t.stem) {
			seen++
		}
	}
	return seen < capitalSeen
}

// namesKind reports whether the query word raw (an unknown capitalised
// word) stands right before a word some lesson holds, naming which of a
// known kind of thing is asked about ("the Grafana API", "the Zephyr
// service"): it then silences a short question as in v2, however much
// else the query names.
func (x *Index) namesKind(query, raw string) bool {
	fields := strings.Fields(query)
	for i := 0; i+1 < len(fields); i++ {
		w := strings.TrimLeft(fields[i], "\"'`(*")
		if !strings.EqualFold(w, raw) {
			continue // (a word followed by punctuation ends its phrase)
		}
		next := strings.ToLower(strings.TrimRight(fields[i+1], ",.;:?!)\"'`"))
		if next != "" && !Phrasing(next) && x.termDF(Stem(next)) > 0 {
			return true
		}
	}
	return false
}

// stateLeads are the words after which an "-ing" or "-ed" word says what
// state a thing is in or what happens to it ("latency is climbing", "keeps
// crashing", "before timing out").
var stateLeads = map[string]bool{"is": true, "are": true, "was": true, "were": true, "keeps": true,
	"kept": true, "keep": true, "been": true, "gets": true, "got": true, "stuck": true, "before": true,
	"after": true, "while": true, "started": true, "starts": true, "stopped": true}

// stateWords returns the lower-case "-ing" and "-ed" words of the query
// that follow a stateLeads word: a symptom's state, which names no thing,
// so a query word no lesson holds there weighs as phrasing (v3): "quill
// mailers queue latency is climbing" asks about the mailers queue's
// latency whichever verb it uses.
func stateWords(q string) map[string]bool {
	var out map[string]bool
	fields := strings.Fields(strings.ToLower(q))
	for i := 1; i < len(fields); i++ {
		prev := strings.Trim(fields[i-1], "\"'`(),.;:?!")
		if !stateLeads[prev] || strings.ContainsAny(fields[i-1], ",.;:?!") {
			continue
		}
		w := strings.Trim(fields[i], "\"'`(),.;:?!")
		if len(w) < 5 || !(strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed")) || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[w] = true
	}
	return out
}
