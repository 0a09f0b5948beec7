package lessons

import (
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/lexrank"
)

// v3's asked-for attribute (docs/retrieval.md, "What v3 changes", step 3):
// a short fact question names what it asks about a thing (the owner, the
// port, the license, the minSdk), and a lesson that does not hold it is
// about the thing but not about the fact asked for.

// attrTarget is the attribute a question asks for.
type attrTarget struct {
	// stems must all be held by the lesson: the attribute word, or every
	// part of an identifier naming it ("minSdk": min, sdk).
	stems []string
	// prefix: a lesson term starting with the stem holds it (the verb of
	// "who owns" is held by "owner", "owned").
	prefix bool
	// numeric: a stated quantity stands in for the word ("Django 5.1"
	// gives a version without saying "version").
	numeric bool
}

func (a attrTarget) none() bool { return len(a.stems) == 0 }

// heldBy reports whether a lesson whose terms are all and whose answer is
// answer holds the attribute.
func (a attrTarget) heldBy(all []string, answer string) bool {
	if a.none() {
		return true
	}
	ok := true
	for _, s := range a.stems {
		if !slices.Contains(all, s) && !slices.ContainsFunc(lexrank.Synonyms(s), func(t string) bool { return slices.Contains(all, t) }) &&
			!(a.prefix && slices.ContainsFunc(all, func(t string) bool { return strings.HasPrefix(t, s) })) {
			ok = false
			break
		}
	}
	return ok || a.numeric && (statesQuantity(answer) || statesVersion(answer))
}

// statesVersion reports whether text holds a dotted version number
// ("go1.22", "v5.0.2", "20.11") or a hexadecimal literal ("0x27000").
func statesVersion(text string) bool {
	for i := 1; i+1 < len(text); i++ {
		if text[i] == '.' && isDigitByte(text[i-1]) && isDigitByte(text[i+1]) ||
			text[i] == 'x' && text[i-1] == '0' && (i == 1 || !isAlnum(text[i-2])) && strings.ContainsRune("0123456789abcdefABCDEF", rune(text[i+1])) {
			return true
		}
	}
	return false
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// knownWord reports whether an attribute no lesson holds is an everyday
// word naming a fact the store lacks ("license", "priority"), rather than
// an abbreviation or a synonym of a word some lesson holds ("var" for
// "variable"), which may be how the asker put a known thing.
func (li *lexIndex) knownWord(stem string) bool {
	for _, t := range lexrank.Synonyms(stem) {
		if li.x.Has(t) {
			return false
		}
	}
	return len(lexrank.Synonyms(stem)) == 0
}

// numericHeads are attributes a lesson usually gives as a bare number.
var numericHeads = wordSet(`version level rate address`)

// vagueHeads ask for a way or a thing to do, not for an attribute a lesson
// would name (what policy, which command, what approach).
var vagueHeads = wordSet(`policy policies way ways approach strategy steps step process procedure command
	commands fix fixes solution workaround option options setting settings value values thing things
	rule rules plan practice method tool tools one ones kind sort type types part parts changes change
	else happened happens`)

// formHeads are attributes a lesson gives by their form rather than by
// name (a path, a file name, a URL, a command line): a lesson answering
// "which file configures the linter" need not say "file".
var formHeads = wordSet(`location locations place name names path paths file files folder directory url link
	instructions guide example examples syntax list format formats pattern convention style naming`)

// whAux end a wh-question's noun phrase ("which port does ...").
var whAux = wordSet(`is are was were does do did should can could will would has have had must may might
	shall to in on at for of from by with about into after before i we you it they`)

var auxVerbs = wordSet(`is are was were does do did should can could will would has have had must may might shall`)

var determiners = wordSet(`the a an this that these those my our your its their`)

// attributeTarget returns the attribute a short fact question asks for, by
// its form (docs/retrieval.md, v3 step 3):
//
//   - "<attribute> for|of <thing>" (attributeHead's form; the attribute
//     need not be held by any lesson: a fact nobody wrote down is unknown);
//   - "what|which <attribute> <verb> ...": the last word of the noun phrase
//     after the wh-word ("which Redis version runs ...", "what license is
//     ...");
//   - "who <verb> ...": the verb ("who owns", "who reviewed": held by
//     owner, reviewed).
//
// A word that names no attribute (phrasing, purpose, policy, way, command)
// gives none; an attribute that is part of an identifier ("minSdk") needs
// all its parts.
func (li *lexIndex) attributeTarget(query string) attrTarget {
	terms := lexrank.Terms(query)
	distinct := map[string]bool{}
	for _, t := range terms {
		distinct[t.Stem] = true
	}
	if len(distinct) > lexrank.BlockTerms {
		return attrTarget{}
	}
	var f, orig []string // lower-cased, and as written
	for _, w := range strings.Fields(query) {
		w = strings.Trim(w, "\"'`()*,;:?!.")
		if w != "" {
			f = append(f, strings.ToLower(w))
			orig = append(orig, w)
		}
	}
	if len(f) < 2 {
		return attrTarget{}
	}
	if f[0] != "who" || whAux[f[1]] {
		if head := li.attributeHeadAny(query); head != "" {
			if vagueHeads[head] || !li.x.Has(head) && (!li.knownWord(head) || formHeads[lastWordBefore(query)]) {
				return attrTarget{}
			}
			return li.identTarget(query, head)
		}
	}
	switch f[0] {
	case "who":
		v := f[1]
		if whAux[v] || lexrank.Phrasing(v) || len(v) < 3 {
			return attrTarget{}
		}
		for _, suf := range []string{"ed", "es", "s"} {
			if b, ok := strings.CutSuffix(v, suf); ok && len(b) >= 3 {
				v = b
				break
			}
		}
		return attrTarget{stems: []string{v}, prefix: true}
	case "what", "which":
	default:
		return attrTarget{}
	}
	// The noun phrase after the wh-word ends at an auxiliary ("which port
	// does ...") or at a verb followed by a determiner ("which keystore
	// signs the ..."); any other ending ("what took auth-service down on")
	// is no attribute question.
	var np, npOrig []string
	ended := false
	for i := 1; i < len(f) && len(np) < 4; i++ {
		w := f[i]
		if auxVerbs[w] {
			ended = true
			break
		}
		if whAux[w] || determiners[w] {
			break
		}
		if i+1 < len(f) && determiners[f[i+1]] {
			ended = len(np) > 0 // "which keystore signs the ...": a verb
			break
		}
		np = append(np, w)
		npOrig = append(npOrig, orig[i])
	}
	if !ended || len(np) == 0 || len(np) > 3 {
		return attrTarget{}
	}
	head := np[len(np)-1]
	ts := lexrank.Terms(npOrig[len(npOrig)-1])
	if len(ts) == 0 || vagueHeads[head] || formHeads[head] || metaHeads[head] || lexrank.Phrasing(head) ||
		!li.x.Has(ts[len(ts)-1].Stem) && !li.knownWord(ts[len(ts)-1].Stem) {
		return attrTarget{}
	}
	a := li.identTarget(query, ts[len(ts)-1].Stem)
	a.numeric = a.numeric || numericHeads[head]
	return a
}

// identTarget is the target for head: every part of the identifier of the
// query holding it ("minSdk"), else head alone.
func (li *lexIndex) identTarget(query, head string) attrTarget {
	a := attrTarget{stems: []string{head}}
	for _, w := range strings.Fields(query) {
		ts := lexrank.Terms(w)
		if len(ts) < 2 || !slices.ContainsFunc(ts, func(t lexrank.Term) bool { return t.Stem == head }) {
			continue
		}
		a.stems = a.stems[:0]
		for _, t := range ts {
			if !slices.Contains(a.stems, t.Stem) {
				a.stems = append(a.stems, t.Stem)
			}
		}
		break
	}
	for _, s := range a.stems {
		if numericHeads[s] {
			a.numeric = true
		}
	}
	return a
}

// asksCost reports whether a fact question asks what something costs:
// "what does X cost", "what is the cost of X", "the price per month".
func asksCost(query string) bool {
	f := strings.Fields(strings.ToLower(query))
	if len(f) == 0 || !factWords[strings.Trim(f[0], "\"'`(*-")] {
		return false
	}
	aux := false
	for i, w := range f {
		w = strings.Trim(w, "?!.,;:")
		switch {
		case w == "does" || w == "do" || w == "did" || w == "will" || w == "would":
			aux = true
		case w == "cost" || w == "costs" || w == "price":
			next := ""
			if i+1 < len(f) {
				next = strings.Trim(f[i+1], "?!.,;:")
			}
			prev := ""
			if i > 0 {
				prev = f[i-1]
			}
			if aux || next == "per" || next == "of" && (prev == "the" || prev == "monthly") {
				return true
			}
		}
	}
	return false
}

// forOfCut returns query in lower case and the offset of its first " for "
// or " of " (-1 when it has neither, or only at its start).
func forOfCut(query string) (low string, cut int) {
	low, cut = strings.ToLower(query), -1
	if len(low) != len(query) {
		// Lower-casing changed the length of some letter (U+0130 İ and a few
		// others), so low's offsets are not query's: lower ASCII alone, as
		// " for " and " of " are.
		low = strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, query)
	}
	for _, sep := range []string{" for ", " of "} {
		if i := strings.Index(low, sep); i > 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	return low, cut
}

// lastWordBefore returns the lower-case word before the first " for " or
// " of " of query (attributeHead's attribute word as written).
func lastWordBefore(query string) string {
	low, cut := forOfCut(query)
	if cut < 0 {
		return ""
	}
	f := strings.Fields(low[:cut])
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[len(f)-1], "\"'`()*,;:?!."))
}
