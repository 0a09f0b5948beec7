package lessons

import (
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/lexrank"
)

// v3's supersession by mention (docs/retrieval.md, "What v3 changes"): a
// newer lesson that names what an older hit says and rejects or replaces
// it ("replaced GORM", "no longer", "was removed", "instead") supersedes
// that hit, however differently its question is worded, unless its last
// settlement was measured to cost tests (measurement outranks novelty).

// replaceCues are the words and phrases with which a lesson rejects or
// replaces earlier advice.
var replaceCues = []string{"no", "not", "never", "no longer", "instead", "replaced", "replace", "replaces",
	"removed", "deleted", "dropped", "deprecated", "stale", "archived", "bans", "banned", "ignored",
	"stop", "stopped", "move off", "moved off", "moved away", "anymore", "obsolete", "outdated",
	"superseded", "rather than", "nobody", "wrong", "resolved", "resumed", "unpaused", "reverted", "lifted", "re-enabled"}

// rejectsAny reports whether a sentence of text holds a replacement cue
// and a term for which has returns true (a term of the older lesson).
func rejectsAny(text string, has func(stem string) bool) bool {
	for text != "" {
		sent := firstSentence(text)
		rest := strings.TrimLeft(text[len(sent):], ".?!\n ")
		if rejects(sent) && slices.ContainsFunc(lexrank.Stems(sent), has) {
			return true
		}
		if len(rest) == len(text) {
			break
		}
		text = rest
	}
	return false
}

// rejects reports whether text holds a replacement cue as a whole word or
// phrase.
func rejects(text string) bool {
	low := strings.ToLower(text)
	for _, c := range replaceCues {
		for i := 0; ; {
			j := strings.Index(low[i:], c)
			if j < 0 {
				break
			}
			j += i
			end := j + len(c)
			if (j == 0 || !isAlnum(low[j-1])) && (end == len(low) || !isAlnum(low[end])) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80
}

// lastCredit returns the credit of e's latest settlement, if any.
func (s *Store) lastCredit(e *Entry) (float64, bool) {
	h := s.notesOf(e.ID)
	for i := len(h) - 1; i >= 0; i-- {
		if !strings.Contains(h[i], `"settle"`) {
			continue
		}
		n := noteOf(h[i])
		if n.Legacy() || n.Event() != "settle" {
			continue
		}
		if c, ok := n.Credit(); ok {
			return c, true
		}
	}
	return 0, false
}

// replacedHits drops every hit that a newer hit supersedes by mention: the
// newer one holds a replacement cue, shares with it a distinctive query
// term and another term, and is not its sibling (the same question about
// another thing). The newer hit takes the better place of the two, and is
// no longer about another thing (other) when the older one was not.
func (s *Store) replacedHits(li *lexIndex, hits []Hit, stems, all [][]string, isQ []bool, lead [][]string, qstems []string, pos map[*Entry]int, other map[*Entry]bool) ([]Hit, [][]string, [][]string, []bool, [][]string) {
	if len(hits) < 2 {
		return hits, stems, all, isQ, lead
	}
	cue := make([]int8, len(hits)) // 0 unknown, 1 yes, -1 no
	by := make([]int, len(hits))
	for i := range by {
		by[i] = -1
	}
	for i := range hits {
		for j := range hits {
			if i == j || !s.newer(hits[j].Entry, hits[i].Entry, pos) {
				continue
			}
			if by[i] >= 0 && !s.newer(hits[j].Entry, hits[by[i]].Entry, pos) {
				continue
			}
			shared, distinct := 0, false
			for _, t := range all[j] {
				if slices.Contains(all[i], t) {
					shared++
					distinct = distinct || slices.Contains(qstems, t) && li.distinctive(t)
				}
			}
			if shared < 2 || !distinct {
				continue
			}
			if isQ[i] && isQ[j] && li.apart(hits[i].Entry, hits[j].Entry, stems[i], all[i], stems[j], all[j], qstems) ||
				!(isQ[i] && isQ[j]) && li.siblings(stems[i], all[i], stems[j], all[j]) &&
					li.x.QuestionSimilarity(stems[i], stems[j], nil) >= v2SiblingSimilarity {
				continue
			}
			if cue[j] == 0 {
				cue[j] = -1
				if rejects(hits[j].Entry.Question + "\n" + hits[j].Entry.Answer) {
					cue[j] = 1
					if c, ok := s.lastCredit(hits[j].Entry); ok && c < 0 {
						cue[j] = -1 // measured to cost tests: novelty does not outrank it
					}
				}
			}
			if cue[j] > 0 && rejectsAny(hits[j].Entry.Question+"\n"+hits[j].Entry.Answer, func(t string) bool {
				return slices.Contains(all[i], t) && li.distinctive(t)
			}) {
				by[i] = j
			}
		}
	}
	// Follow chains to the newest replacement.
	top := func(i int) int {
		for n := 0; by[i] >= 0 && n < len(hits); n++ {
			i = by[i]
		}
		return i
	}
	changed := false
	for i := range hits {
		if by[i] >= 0 {
			j := top(i)
			hits[j].Score = max(hits[j].Score, hits[i].Score)
			hits[j].Coverage = max(hits[j].Coverage, hits[i].Coverage)
			if !other[hits[i].Entry] {
				// It takes the place of a hit about what was asked, and so is
				// about it too (it names the warehouse the older one did).
				delete(other, hits[j].Entry)
			}
			changed = true
		}
	}
	if !changed {
		return hits, stems, all, isQ, lead
	}
	keep := 0
	for i := range hits {
		if by[i] < 0 {
			hits[keep], stems[keep], all[keep], isQ[keep], lead[keep] = hits[i], stems[i], all[i], isQ[i], lead[i]
			keep++
		}
	}
	hits, stems, all, isQ, lead = hits[:keep], stems[:keep], all[:keep], isQ[:keep], lead[:keep]
	// Stable re-sort by the new scores, carrying the parallel slices.
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if hits[a].Score > hits[b].Score {
			return -1
		}
		if hits[a].Score < hits[b].Score {
			return 1
		}
		return 0
	})
	h2, s2, a2, q2, l2 := make([]Hit, len(idx)), make([][]string, len(idx)), make([][]string, len(idx)), make([]bool, len(idx)), make([][]string, len(idx))
	for k, i := range idx {
		h2[k], s2[k], a2[k], q2[k], l2[k] = hits[i], stems[i], all[i], isQ[i], lead[i]
	}
	return h2, s2, a2, q2, l2
}

// hasSibling reports whether another of the hits asks e's question about
// another thing (restart the billing service / the payments service): the
// store holds a family of such questions, so a plain word the query adds
// in their place ("the inventory service") names a member it lacks. A
// query naming e's own member (a term of e's question its sibling lacks)
// asks about e.
func (li *lexIndex) hasSibling(e *Entry, hits []lexrank.Hit, qstems []string, memo stemMemo) bool {
	q := memo.of(e.Question)
	all := memo.of(e.Question + "\n" + e.Answer)
	for _, h := range hits {
		o := li.docs[h.Doc]
		if o == nil || o == e {
			continue
		}
		oq := memo.of(o.Question)
		oall := memo.of(o.Question + "\n" + o.Answer)
		if !li.siblings(q, all, oq, oall) || li.x.QuestionSimilarity(q, oq, nil) < v2SiblingSimilarity {
			continue
		}
		if !slices.ContainsFunc(q, func(t string) bool {
			return slices.Contains(qstems, t) && !slices.Contains(oall, t) && li.distinctive(t)
		}) {
			return true
		}
	}
	return false
}

// costly reports whether e's latest settlement was measured to cost tests
// (a negative credit): v3 does not let such a lesson supersede by novelty.
func (s *Store) costly(e *Entry) bool {
	c, ok := s.lastCredit(e)
	return ok && c < 0
}

// sameQuestion3 is v3's test of whether two hits whose questions are
// headings answer the same question, so that the newer supersedes the
// older. They do not when they ask about different aspects of one thing:
// each question holds a word the other lesson lacks that heads other
// lessons' questions too (run the tests of apps/web / deploy apps/web).
// They do when v2's test says so (similar questions, not siblings), and
// also when their questions share a distinctive query term and they are
// not siblings in the strict sense (each question naming a distinctive
// thing, also named in its own answer, that the other lesson lacks: the
// payments-api / the orders-api), however differently they are worded.
func (li *lexIndex) sameQuestion3(a, b *Entry, qa, alla, qb, allb, qstems []string, boost map[string]bool) bool {
	if li.facet(qa, allb) && li.facet(qb, alla) {
		return false
	}
	if !li.siblings(qa, alla, qb, allb) && li.x.QuestionSimilarity(qa, qb, boost) >= v2SameQuestion {
		return true
	}
	if !slices.ContainsFunc(qa, func(t string) bool {
		return slices.Contains(qb, t) && slices.Contains(qstems, t) && li.distinctive(t)
	}) {
		return false
	}
	return !li.apart(a, b, qa, alla, qb, allb, qstems)
}

// apart reports whether two lessons are about different things for v3:
// each question names a distinctive thing, also named in its own answer,
// that the other lesson lacks (the payments-api / the orders-api), or
// the query names such a thing of one of them (deploy services/api, not
// apps/web).
func (li *lexIndex) apart(a, b *Entry, qa, alla, qb, allb, qstems []string) bool {
	ansA, ansB := lexrank.Stems(a.Answer), lexrank.Stems(b.Answer)
	named := func(q, ans, other []string, query bool) bool {
		return slices.ContainsFunc(q, func(t string) bool {
			return (!query || slices.Contains(qstems, t)) && !slices.Contains(other, t) && slices.Contains(ans, t) && li.distinctive(t)
		})
	}
	return named(qa, ansA, allb, false) && named(qb, ansB, alla, false) ||
		named(qa, ansA, allb, true) || named(qb, ansB, alla, true)
}

// facet reports whether question q holds a word the other lesson (all)
// lacks that also heads at least one other lesson's question: an aspect
// (tests, deploy) rather than a rewording. Short words and phrasing
// ("js", "use", "need") are no aspect.
func (li *lexIndex) facet(q, other []string) bool {
	return slices.ContainsFunc(q, func(t string) bool {
		return len(t) >= 4 && !lexrank.Phrasing(t) && !slices.Contains(other, t) && li.x.QuestionDF(t, 2) >= 2
	})
}

// rejectsOf reports whether e rejects or replaces something of a lesson
// whose terms are other: a sentence of e holds a replacement cue and a
// distinctive term of other.
func (li *lexIndex) rejectsOf(e *Entry, other []string) bool {
	return rejectsAny(e.Question+"\n"+e.Answer, func(t string) bool {
		return slices.Contains(other, t) && li.distinctive(t)
	})
}

// attributeHead returns the attribute a short question asks about when it
// has the form "<attribute> for|of <thing>" ("the memory limit for the
// orders-api pods", "the owner of the billing database"): the last term
// before the first " for " or " of ", when some lesson holds it and it is
// not phrasing. A lesson that does not hold it is about the thing, not the
// attribute asked for (v3, docs/retrieval.md). "" when there is none.
func (li *lexIndex) attributeHead(query string) string {
	h := li.attributeHeadAny(query)
	if h == "" || !li.x.Has(h) {
		return ""
	}
	return h
}

// attributeHeadAny is attributeHead whether or not a lesson holds the
// attribute: v3 asks the deciding lesson to hold it (attributeTarget).
func (li *lexIndex) attributeHeadAny(query string) string {
	_, cut := forOfCut(query)
	if cut < 0 {
		return ""
	}
	terms := lexrank.Terms(query)
	distinct := map[string]bool{}
	for _, t := range terms {
		distinct[t.Stem] = true
	}
	if len(distinct) > lexrank.BlockTerms {
		return "" // a task description, not a question about one fact
	}
	before := lexrank.Terms(query[:cut])
	if len(before) == 0 {
		return ""
	}
	// Only a question asking for a fact (what, which, who, whose, when) or
	// a noun phrase ("memory limit for the orders-api pods") names an
	// attribute there; in "how do I check for leaks" or "add support for
	// arm64" the word before "for" is a verb's.
	first := strings.ToLower(strings.TrimLeft(strings.Fields(query)[0], "\"'`(*-"))
	switch {
	case factWords[first]:
	case notFactWords[first] || imperatives[first] || len(before) < 2:
		return ""
	}
	t := before[len(before)-1]
	if lexrank.Phrasing(t.Raw) || metaHeads[t.Raw] {
		return ""
	}
	// "vitest or jest for ..." offers a choice, and "who's on call for
	// ..." a predicate: neither names an attribute.
	bf := strings.Fields(strings.ToLower(query[:cut]))
	// Nor does "... is used for ...": a passive verb.
	if slices.Contains(bf, "or") || len(bf) >= 2 && (predicatePreps[bf[len(bf)-2]] || passiveAux[bf[len(bf)-2]]) {
		return ""
	}
	return t.Stem
}

// lacksName reports whether e's text lacks one of the query's identifier
// parts that is not phrasing ("search" of "search-service").
func (li *lexIndex) lacksName(e *Entry, idents []string, memo stemMemo) bool {
	if len(idents) == 0 {
		return false
	}
	all := memo.of(e.Question + "\n" + e.Answer)
	return slices.ContainsFunc(idents, func(t string) bool {
		return !lexrank.Phrasing(t) && !slices.Contains(all, t)
	})
}

// asksQuantity reports whether a query asks for a quantity: how often, how
// many, how much, how long.
func asksQuantity(query string) bool {
	low := strings.ToLower(query)
	for _, p := range []string{"how often", "how many", "how much", "how long"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

var quantityWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`one two three four five six seven eight nine ten eleven twelve
		fifteen twenty thirty forty fifty sixty hundred thousand million once twice daily hourly
		nightly weekly monthly yearly every half dozen few several`) {
		m[w] = true
	}
	return m
}()

// statesQuantity reports whether text gives a quantity: a number standing
// as a word, possibly with a unit or "%" ("30", "250ms", "75%"), or a
// number or frequency word ("two", "twice", "nightly"). Numbers inside
// names and versions ("v2", "go1.22", "pr#812") do not count.
func statesQuantity(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '%' || r == '#' || r == '-' || r == '_' || r == '/' || r == ':')
	}) {
		w = strings.Trim(w, ".:-")
		if quantityWords[w] {
			return true
		}
		i := 0
		for i < len(w) && (w[i] >= '0' && w[i] <= '9' || i > 0 && w[i] == '.') {
			i++
		}
		if i == 0 {
			continue
		}
		unit := w[i:]
		if unit == "" || unit == "%" || len(unit) <= 3 && strings.Trim(unit, "abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return false
}

// metaHeads ask about a thing without naming an attribute a lesson would
// write down ("the purpose of the retry flag").
var metaHeads = wordSet(`purpose point reason reasons meaning goal status state role idea use usage
	difference benefit benefits advantage problem problems issue issues story history context
	rationale background deal details detail summary overview explanation cause`)

var predicatePreps = wordSet(`on in at off`)

var passiveAux = wordSet(`is are was were be been being get gets got`)

var factWords = wordSet(`what what's whats which who who's whos whose when`)

var notFactWords = wordSet(`how how's why where where's can could should would will do does did
	is are was were may might must i we i'm please`)

var imperatives = wordSet(`add check wait look search use run set fix make create build update
	remove apply install configure write enable disable deploy test migrate bump upgrade move rename
	delete reset restart start stop rotate ask help get put find send`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// stemMemo caches the stems of texts for one v3 query, whose pairwise
// checks among the candidates ask for the same lessons' stems repeatedly.
type stemMemo map[string][]string

func (m stemMemo) of(text string) []string {
	if v, ok := m[text]; ok {
		return v
	}
	v := lexrank.Stems(text)
	m[text] = v
	return v
}

// withSynonyms returns the union of the query's stems as written and as
// searched, with the synonyms of each: a lesson asking how releases are
// published does not name something else than a query to ship a version.
func withSynonyms(written, searched []string) []string {
	out := slices.Clone(written)
	add := func(t string) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, ts := range [][]string{written, searched} {
		for _, t := range ts {
			add(t)
			for _, s := range lexrank.Synonyms(t) {
				add(s)
			}
		}
	}
	return out
}

// aboutOther3 is aboutOther for v3's plain unknown words: phrasing ("now",
// "still") names nothing, and wide holds the query's synonyms.
func (li *lexIndex) aboutOther3(e *Entry, wide []string) bool {
	for _, t := range li.subject(e.Question, lexrank.Stems(e.Question), lexrank.Stems(e.Question+"\n"+e.Answer)) {
		if !slices.Contains(wide, t) && !lexrank.Phrasing(t) && li.distinctive(t) {
			return true
		}
	}
	return false
}

// holdsSeen reports whether e holds every term of the query that some
// lesson holds (phrasing aside), three or more of them distinctive: what
// the query names that the store knows all points at e, so a plain word
// no lesson holds ("gfortran", "climbing", "devices") is how the asker put
// it rather than another thing (v3). Two shared terms are not enough: "how
// do I restart the inventory service" holds only restart and service of
// the billing service's note, and inventory names another member.
func (li *lexIndex) holdsSeen(e *Entry, terms []string, memo stemMemo) bool {
	all := memo.of(e.Question + "\n" + e.Answer)
	n := 0
	for _, t := range terms {
		if lexrank.Phrasing(t) || !li.x.Has(t) {
			continue
		}
		if !slices.Contains(all, t) {
			return false
		}
		if li.distinctive(t) {
			n++
		}
	}
	return n >= 3
}

// heir is a hit a recorded supersession replaces, the lesson that takes
// its place, and whether the hit was about another thing.
type heir struct {
	hit   Hit
	top   *Entry
	other bool
}

// inherit gives every superseding lesson the best place and coverage of
// the hits it supersedes, and makes it about what was asked when one of
// them was (v3): the newest lesson of a chain whose older member names
// the asked thing (IPHONEOS_DEPLOYMENT_TARGET, written in the first
// lesson only) answers as that member would, the same as a group of
// rephrased updates does at query time. v2 keeps the first place only.
func inherit(kept []Hit, heirs []heir, other map[*Entry]bool, pos map[*Entry]int) []Hit {
	at := make(map[*Entry]int, len(kept))
	for i, h := range kept {
		at[h.Entry] = i
	}
	for _, h := range heirs {
		i, ok := at[h.top]
		if !ok {
			continue
		}
		kept[i].Score = max(kept[i].Score, h.hit.Score)
		kept[i].Coverage = max(kept[i].Coverage, h.hit.Coverage)
		if !h.other {
			delete(other, h.top)
		}
	}
	sortHits(kept, pos)
	return kept
}
