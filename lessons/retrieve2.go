package lessons

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/lexrank"
	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// Retrieval names a ranking. Tickets record the one they were minted with
// (the vN of a store-free ticket), so the action verifies each ticket with
// the ranking that produced it.
type Retrieval string

const (
	// RetrievalDarwinMemo is darwin-memo's ranking, byte for byte: smoothed
	// IDF over token sets, the 0.25 coverage floor, energy only to break
	// ties (semantics §4.2). Tickets: v1.
	RetrievalDarwinMemo Retrieval = "darwin-memo"
	// RetrievalV2 is this project's ranking (docs/retrieval.md): BM25F with
	// the question weighted above the answer, identifier splitting and
	// light stemming, a coverage floor that weighs words no lesson
	// contains by their rarity in ordinary English, supersession among
	// lessons on the same question (the newest decides), and a cut at a
	// large drop in score. Tickets: v2.
	RetrievalV2 Retrieval = "v2"
	// RetrievalV3 is v2 with the query handling and supersession of
	// docs/retrieval.md ("What v3 changes"): synonyms and dates in the
	// query, only names silence it, the newer of two lessons on one
	// subject decides unless measured to cost tests. The default since
	// 2026-11-25. Tickets: v3 (v2 tickets keep verifying with v2).
	RetrievalV3 Retrieval = "v3"
)

// ParseRetrieval reads a retrieval name ("darwin-memo" or "v1", "v2", "v3").
func ParseRetrieval(s string) (Retrieval, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "darwin-memo", "v1":
		return RetrievalDarwinMemo, nil
	case "v2":
		return RetrievalV2, nil
	case "v3":
		return RetrievalV3, nil
	}
	return "", fmt.Errorf("unknown retrieval %q; use darwin-memo (v1), v2 or v3", s)
}

// TicketVersion is the store-free ticket version minted with r.
func (r Retrieval) TicketVersion() int {
	switch r {
	case RetrievalDarwinMemo:
		return 1
	case RetrievalV2:
		return 2
	}
	return 3
}

// retrievalOfVersion is the ranking a vN ticket was minted with.
func retrievalOfVersion(v int) Retrieval {
	switch {
	case v <= 1:
		return RetrievalDarwinMemo
	case v == 2:
		return RetrievalV2
	}
	return RetrievalV3
}

// retrievalKey is the store-config key ("config": {..., "retrieval":
// "darwin-memo"}) that makes darwin-memo's ranking a store's default.
// darwin-memo ignores unknown store-config keys; we round-trip them.
const retrievalKey = "retrieval"

// Retrieval returns the store's default ranking: the one its config names
// ("retrieval": "darwin-memo", "v2" or "v3"), else Options.Retrieval, else v3.
func (s *Store) Retrieval() Retrieval {
	for _, mb := range s.extraCfg {
		if mb.Key == retrievalKey && mb.Value.Kind() == pyjson.KindString {
			if r, err := ParseRetrieval(mb.Value.Str()); err == nil {
				return r
			}
		}
	}
	if s.opts.Retrieval != "" {
		return s.opts.Retrieval
	}
	return RetrievalV3
}

// SetRetrieval records r as the store's default ranking in its config.
func (s *Store) SetRetrieval(r Retrieval) {
	s.extraCfg = pyjson.SetMember(s.extraCfg, retrievalKey, pyjson.String(string(r)))
}

func (s *Store) resolveRetrieval(r Retrieval) Retrieval {
	if r == "" {
		return s.Retrieval()
	}
	return r
}

// SupersedesPrefix starts the source label a lesson carries for each lesson
// it supersedes ("supersedes:<id>"). darwin-memo refuses unknown entry keys
// but keeps sources labels, so the record survives a round trip there.
const SupersedesPrefix = "supersedes:"

// Supersedes returns the ids e's sources say it supersedes.
func (e *Entry) Supersedes() []string {
	var out []string
	for _, src := range e.Sources {
		if id, ok := strings.CutPrefix(src, SupersedesPrefix); ok && isHex12(id) {
			out = append(out, id)
		}
	}
	return out
}

// v2 tuning (docs/retrieval.md; the retrieval suite in
// retrievaleval_test.go guards them).
const (
	// v2Candidates is how many qualifying hits supersession considers.
	v2Candidates = 24
	// v2SameQuestion is the weighted question similarity at which two hits
	// are about the same question, so that the newer supersedes the older.
	v2SameQuestion = 0.5
	// v2Drop cuts the hit list where a score falls below this share of the
	// best score.
	v2Drop = 0.75
	// v2SureCoverage: a hit covering this share of the query's weight is
	// kept even when the query holds a content word no lesson contains.
	v2SureCoverage = 0.7
	// v2SiblingSimilarity is the question similarity from which two
	// lessons with different distinctive terms are siblings.
	v2SiblingSimilarity = 0.3
	// v3OrdinaryCoverage: with v3, a hit covering this share of a query
	// whose unknown words are all plain words ("repo", "suite") is kept
	// even when its question names something the query does not.
	v3OrdinaryCoverage = 0.55
	// birthSameQuestion is the similarity at which a new lesson records
	// that it supersedes a living one (Store.Add).
	birthSameQuestion = 0.6
)

// lexIndex is the v2 index over the living entries.
type lexIndex struct {
	x    *lexrank.Index
	docs []*Entry
	doc  map[*Entry]int
	// supersededBy maps an id to the living entries recording that they
	// supersede it, in living order.
	supersededBy map[string][]*Entry
	// distinct caches distinctive() until the index changes.
	distinct map[string]bool
	// questions counts living lessons by normalised question text.
	questions map[string]int
}

func newLexIndex(es []*Entry) *lexIndex {
	return newLexIndexWith(es, func() *lexrank.Index {
		return lexrank.Build(len(es), func(i int) (string, string) { return es[i].Question, es[i].Answer }, runtime.GOMAXPROCS(0))
	})
}

// newLexIndexFor is the lexIndex of es for one query (RetrieveOptions.Once):
// its lexrank index is lexrank.BuildFor's, which holds only the query's
// postings, so it answers that query alone and must not be kept.
func newLexIndexFor(query string, es []*Entry) *lexIndex {
	return newLexIndexForAll([]string{query}, es)
}

// newLexIndexForAll is newLexIndexFor for several queries (lexrank.BuildForAll).
// Lessons may be added to it (lexIndex.add) but not removed.
func newLexIndexForAll(queries []string, es []*Entry) *lexIndex {
	return newLexIndexWith(es, func() *lexrank.Index {
		return lexrank.BuildForAll(queries, len(es), func(i int) (string, string) { return es[i].Question, es[i].Answer }, runtime.GOMAXPROCS(0))
	})
}

// newLexIndexWith returns the lexIndex of es with the lexrank index build
// returns. The maps are filled on another goroutine while the index is
// built (the build's merge leaves a core idle).
func newLexIndexWith(es []*Entry, build func() *lexrank.Index) *lexIndex {
	li := &lexIndex{doc: make(map[*Entry]int, len(es)), supersededBy: map[string][]*Entry{}, questions: map[string]int{}}
	li.docs = append([]*Entry(nil), es...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, e := range es {
			li.doc[e] = i
			li.questions[normQuestion(e.Question)]++
			for _, id := range e.Supersedes() {
				li.supersededBy[id] = append(li.supersededBy[id], e)
			}
		}
	}()
	li.x = build()
	<-done
	return li
}

func (li *lexIndex) add(e *Entry) {
	li.distinct = nil
	li.questions[normQuestion(e.Question)]++
	li.doc[e] = li.x.Add(e.Question, e.Answer)
	li.docs = append(li.docs, e)
	for _, id := range e.Supersedes() {
		li.supersededBy[id] = append(li.supersededBy[id], e)
	}
}

func (li *lexIndex) remove(e *Entry) {
	li.distinct = nil
	d, ok := li.doc[e]
	if !ok {
		return
	}
	li.x.Remove(d)
	li.docs[d] = nil
	li.questions[normQuestion(e.Question)]--
	delete(li.doc, e)
	for _, id := range e.Supersedes() {
		li.supersededBy[id] = slices.DeleteFunc(li.supersededBy[id], func(x *Entry) bool { return x == e })
	}
}

func (s *Store) ensureLexIndex() *lexIndex {
	ix := s.ensureIndexShell()
	if ix.lex == nil {
		ix.lex = newLexIndex(s.living)
	}
	return ix.lex
}

// newer reports whether a was recorded after b: by recorded_ts (an empty
// one is oldest), then born tick, then store order.
func (s *Store) newer(a, b *Entry, pos map[*Entry]int) bool {
	if c := strings.Compare(a.RecordedTS, b.RecordedTS); c != 0 {
		return c > 0
	}
	if a.BornCycle != b.BornCycle {
		return a.BornCycle > b.BornCycle
	}
	return pos[a] > pos[b]
}

// retrieveV2 is Retrieve for RetrievalV2.
func (s *Store) retrieveV2(query string, opts RetrieveOptions) []Hit {
	var li *lexIndex
	if opts.Kind == "" && opts.Source == "" {
		if opts.Once && (s.idx == nil || s.idx.lex == nil) {
			li = newLexIndexFor(query, s.living)
		} else {
			li = s.ensureLexIndex()
		}
	} else {
		var es []*Entry
		for _, e := range s.living {
			if (opts.Kind == "" || e.Kind == opts.Kind) && (opts.Source == "" || slices.Contains(e.Sources, opts.Source)) {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			return nil
		}
		if opts.Once {
			li = newLexIndexFor(query, es)
		} else {
			li = newLexIndex(es)
		}
	}
	v3 := opts.Retrieval == RetrievalV3
	var res lexrank.Result
	if v3 {
		res = li.x.SearchV3(query, lexrank.MinCoverage, v2Candidates)
	} else {
		res = li.x.Search(query, lexrank.MinCoverage, v2Candidates)
	}
	if len(res.Hits) == 0 {
		return nil
	}
	raw := res.Hits[:min(len(res.Hits), v2Candidates)]
	if v3 && li.unknownName(query, raw) {
		return nil
	}
	qstems := lexrank.Stems(query)
	wide := qstems // v3: the query's terms with their synonyms, as written and as searched
	if v3 {
		wide = withSynonyms(qstems, res.Terms)
		qstems = res.Terms
	}
	hits := make([]Hit, 0, len(raw))
	// other marks hits that, asked by a query holding a content word no
	// lesson contains, are about another thing; a cluster of them only is
	// dropped below.
	other := map[*Entry]bool{}
	var attr attrTarget
	var quantity bool
	memo := stemMemo{}
	if v3 {
		attr = li.attributeTarget(query)
		quantity = asksQuantity(query) || asksCost(query)
	}
	for k, h := range raw {
		e := li.docs[h.Doc]
		lacksAttr := !attr.heldBy(memo.of(e.Question+"\n"+e.Answer), e.Answer)
		lacksQty := quantity && !statesQuantity(e.Answer) // asked how often or how many; no number here
		if (lacksAttr || lacksQty) && k == 0 {
			// The lesson matching the query best lacks the attribute asked
			// for: the store knows the thing, not this fact about it.
			return nil
		}
		if lacksQty || lacksAttr {
			other[e] = true
		}
		if v3 && li.lacksName(e, res.Idents, memo) && li.hasSibling(e, raw, qstems, memo) {
			// The query names a thing (search-service) this hit lacks, and the
			// hit is one of a family of questions about other things.
			other[e] = true
		}
		if len(res.Unseen) > 0 && h.Coverage < v2SureCoverage && li.aboutOther(e, qstems) && !(v3 && li.holdsSeen(e, res.Terms, memo) && li.asksAbout(e, qstems)) {
			other[e] = true
		}
		if v3 && len(res.Ordinary) > 0 && (h.Coverage < v2SureCoverage && !li.asksAbout(e, qstems) ||
			li.aboutOther3(e, wide) && h.Coverage < v3OrdinaryCoverage && !(li.holdsSeen(e, res.Terms, memo) && li.asksAbout(e, qstems))) {
			other[e] = true
		}
		if v3 && len(res.Ordinary) > 0 && li.heading(e, memo) && li.aboutOther3(e, wide) && li.hasSibling(e, raw, qstems, memo) {
			// A family of questions differing in one slot, which the query
			// fills with a word none of them holds (the analytics database).
			if k == 0 {
				return nil // the store lacks that member; weaker matches are not about it
			}
			other[e] = true
		}
		sc := h.Score
		if opts.HalfLife > 0 {
			ref := e.BornCycle
			if e.LastUsedCycle >= 0 {
				ref = e.LastUsedCycle
			}
			if age := float64(s.tick - ref); age > 0 {
				sc *= math.Pow(0.5, age/opts.HalfLife)
			}
		}
		hits = append(hits, Hit{Entry: e, Score: sc, Coverage: h.Coverage})
	}
	if len(hits) == 0 {
		return nil
	}
	pos := make(map[*Entry]int, len(hits))
	for _, h := range hits {
		pos[h.Entry] = li.doc[h.Entry]
	}
	sortHits(hits, pos)

	// Recorded supersession: a hit some living lesson supersedes gives way
	// to the newest lesson of its chain (which takes its place if the
	// query did not retrieve it).
	in := map[*Entry]bool{}
	for _, h := range hits {
		in[h.Entry] = true
	}
	var kept []Hit
	var heirs []heir // v3: every superseded hit and the lesson taking its place
	for _, h := range hits {
		top := li.latest(h.Entry, s, pos)
		if top != h.Entry {
			if v3 {
				heirs = append(heirs, heir{h, top, other[h.Entry]})
			}
			if in[top] {
				continue
			}
			in[top] = true
			if _, ok := pos[top]; !ok {
				pos[top] = li.doc[top]
			}
			other[top] = other[h.Entry]
			h.Entry = top
		}
		kept = append(kept, h)
	}
	if len(heirs) > 0 {
		kept = inherit(kept, heirs, other, pos)
	}
	hits = kept

	// Inferred supersession: hits about the same question (weighted
	// question similarity, query words counting triple) cluster, unless
	// they are siblings (the same question about another service, package
	// or incident). The newest takes the cluster's best place and the rest
	// leave the list.
	boost := make(map[string]bool, len(qstems))
	for _, t := range qstems {
		boost[t] = true
	}
	stems := make([][]string, len(hits))
	all := make([][]string, len(hits))
	isQ := make([]bool, len(hits))      // the subject is the question
	lead := make([][]string, len(hits)) // otherwise: the first sentence's terms
	for i, h := range hits {
		all[i] = lexrank.Stems(h.Entry.Question + "\n" + h.Entry.Answer)
		q := lexrank.Stems(h.Entry.Question)
		stems[i] = li.subject(h.Entry.Question, q, all[i])
		gen := li.generic(h.Entry.Question)
		isQ[i] = !gen && !statementLike(q, lexrank.Stems(h.Entry.Answer))
		if !isQ[i] {
			// A statement or a note: its first sentence says what it is about.
			text := h.Entry.Question
			if gen {
				text = h.Entry.Answer
			}
			lead[i] = lexrank.Stems(firstSentence(text))
		}
	}

	// A hit about another thing leaves: a sibling of another hit (a
	// similar question about a different service, package or incident)
	// whose question names a distinctive query term this hit lacks (the
	// query asks about the cache package; this hit is the webhook
	// package's).
	drop := make([]bool, len(hits))
	for i := range hits {
		for h := range hits {
			if h == i || !isQ[h] || !isQ[i] || !slices.ContainsFunc(qstems, func(t string) bool {
				return slices.Contains(stems[h], t) && !slices.Contains(all[i], t) && li.distinctive(t)
			}) {
				continue
			}
			if li.siblings(stems[h], all[h], stems[i], all[i]) && li.x.QuestionSimilarity(stems[h], stems[i], nil) >= v2SiblingSimilarity {
				if v3 && s.newer(hits[i].Entry, hits[h].Entry, pos) && li.rejectsOf(hits[i].Entry, all[h]) {
					continue // not another thing: the newer word on h's (below)
				}
				drop[i] = true
				break
			}
		}
	}
	keep := 0
	for i := range hits {
		if !drop[i] {
			hits[keep], stems[keep], all[keep], isQ[keep] = hits[i], stems[i], all[i], isQ[i]
			if v3 {
				lead[keep] = lead[i] // (v2 leaves lead unaligned here; kept for its tickets)
			}
			keep++
		}
	}
	hits, stems, all, isQ = hits[:keep], stems[:keep], all[:keep], isQ[:keep]
	if len(hits) == 0 {
		return nil
	}
	if v3 {
		lead = lead[:keep]
		hits, stems, all, isQ, lead = s.replacedHits(li, hits, stems, all, isQ, lead, qstems, pos, other)
	}

	// Two hits are about the same question when their questions are
	// similar and they are not siblings; lessons whose questions name
	// nothing (notes under a generic heading) or hold the whole lesson
	// (statements) are compared whole, at a lower similarity, and must hold
	// the same distinctive query words.
	same := func(i, j int) bool {
		if v3 && isQ[i] && isQ[j] {
			return li.sameQuestion3(hits[i].Entry, hits[j].Entry, stems[i], all[i], stems[j], all[j], qstems, boost)
		}
		if isQ[i] && isQ[j] {
			return !li.siblings(stems[i], all[i], stems[j], all[j]) &&
				li.x.QuestionSimilarity(stems[i], stems[j], boost) >= v2SameQuestion
		}
		// Statements and notes: compared by their first sentences, where
		// numbers are values (the port, the timeout) unless the query names
		// one (an incident number), and siblings differ in a word.
		a, b := lead[i], lead[j]
		if a == nil {
			a = stems[i]
		}
		if b == nil {
			b = stems[j]
		}
		for _, t := range qstems {
			if hasDigit(t) && slices.Contains(all[i], t) != slices.Contains(all[j], t) {
				return false
			}
		}
		na, nb := withoutNumbers(a), withoutNumbers(b)
		return !li.siblings(na, all[i], nb, all[j]) && li.x.QuestionSimilarity(na, nb, boost) >= v2SameQuestion
	}
	type cluster struct {
		rep  int  // index of the hit holding the cluster's place
		best int  // index of the newest member
		ok   bool // some member is not about another thing
	}
	var cls []cluster
	for i := range hits {
		joined := false
		for c := range cls {
			if same(cls[c].rep, i) {
				if v3 && s.costly(hits[i].Entry) {
					// measured to cost tests: joins, does not decide
				} else if v3 && s.costly(hits[cls[c].best].Entry) || s.newer(hits[i].Entry, hits[cls[c].best].Entry, pos) {
					cls[c].best = i
				}
				cls[c].ok = cls[c].ok || !other[hits[i].Entry]
				joined = true
				break
			}
		}
		if !joined {
			cls = append(cls, cluster{rep: i, best: i, ok: !other[hits[i].Entry]})
		}
	}
	out := make([]Hit, 0, len(cls))
	for _, c := range cls {
		if !c.ok {
			continue
		}
		h := hits[c.best]
		h.Score = max(h.Score, hits[c.rep].Score)
		h.Coverage = max(h.Coverage, hits[c.rep].Coverage)
		out = append(out, h)
	}

	if len(out) == 0 {
		return nil
	}
	// Cut at a large drop in score.
	best := out[0].Score
	for i := 1; i < len(out); i++ {
		if out[i].Score < v2Drop*best {
			out = out[:i]
			break
		}
	}
	if len(out) > opts.K {
		out = out[:opts.K]
	}
	for i := range out {
		out[i].Confidence = confidence(out[i], best)
	}
	return out
}

// confidence is a hit's calibrated confidence in [0, 1]: the weighted share
// of the query it covers, times its score relative to the best hit.
func confidence(h Hit, best float64) float64 {
	if !(best > 0) {
		return 0
	}
	return min(1, max(0, h.Coverage*h.Score/best))
}

// firstSentence returns text up to its first sentence end (., ?, ! before
// a space or the end, or a line break).
func firstSentence(text string) string {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			if strings.TrimSpace(text[:i]) != "" {
				return text[:i]
			}
		case '.', '?', '!':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				return text[:i]
			}
		}
	}
	return text
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func withoutNumbers(ts []string) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if !hasDigit(t) {
			out = append(out, t)
		}
	}
	return out
}

// statementLike reports whether a lesson's question already holds most of
// its answer (a statement filed as its own question), so the question is
// no heading to compare lessons by.
func statementLike(question, answer []string) bool {
	if len(answer) == 0 {
		return false
	}
	in := 0
	for _, t := range answer {
		if slices.Contains(question, t) {
			in++
		}
	}
	return 5*in >= 4*len(answer)
}

// subject returns the terms that say what a lesson is about: its
// question's, or, when the question is generic (the same question text
// heads at least 3 living lessons and a quarter of them: "Note", "Lesson"
// over statements), the whole lesson's.
func (li *lexIndex) subject(question string, qstems, all []string) []string {
	if li.generic(question) {
		return all
	}
	return qstems
}

func (li *lexIndex) generic(question string) bool {
	n := li.questions[normQuestion(question)]
	return n >= 3 && 4*n >= li.x.Live()
}

func normQuestion(q string) string { return strings.ToLower(strings.TrimSpace(q)) }

// distinctiveShare: a term is distinctive (names a service, a package, an
// incident) when its smoothed idf is at least this share of the idf of a
// term no lesson holds: held by under about 1% of a large store's lessons.
const distinctiveShare = 0.5

func (li *lexIndex) distinctive(stem string) bool {
	if v, ok := li.distinct[stem]; ok {
		return v
	}
	w, top := li.x.Weight(stem)
	v := w >= distinctiveShare*top
	if li.distinct == nil {
		li.distinct = map[string]bool{}
	}
	li.distinct[stem] = v
	return v
}

// aboutOther reports whether e's question names something distinctive
// that the query does not: asked by a query about something the store
// does not know, such a lesson is about another thing (the billing
// service, not the unknown inventory service), not a partial answer.
func (li *lexIndex) aboutOther(e *Entry, qstems []string) bool {
	for _, t := range li.subject(e.Question, lexrank.Stems(e.Question), lexrank.Stems(e.Question+"\n"+e.Answer)) {
		if !slices.Contains(qstems, t) && li.distinctive(t) {
			return true
		}
	}
	return false
}

// siblings reports whether two lessons ask the same question about
// different things: each question holds a distinctive term the other
// lesson (question or answer) lacks, as "restart the billing service" and
// "restart the payments service" do. An update that merely rephrases or
// adds a word is not a sibling.
func (li *lexIndex) siblings(qa, alla, qb, allb []string) bool {
	has := func(q, other []string) bool {
		for _, t := range q {
			if !slices.Contains(other, t) && li.distinctive(t) {
				return true
			}
		}
		return false
	}
	return has(qa, allb) && has(qb, alla)
}

// latest follows recorded supersession from e to the newest living lesson
// that supersedes it (e itself when none does).
func (li *lexIndex) latest(e *Entry, s *Store, pos map[*Entry]int) *Entry {
	seen := map[*Entry]bool{e: true}
	for {
		var next *Entry
		for _, c := range li.supersededBy[e.ID] {
			if seen[c] || sharedTerms(c.Question, e.Question) < 2 {
				continue // a record between unrelated questions (hand-made) is ignored
			}
			if next == nil || s.newer(c, next, pos) {
				next = c
			}
		}
		if next == nil {
			return e
		}
		seen[next] = true
		e = next
	}
}

// sharedTerms counts the terms two questions have in common.
func sharedTerms(a, b string) int {
	bs := lexrank.Stems(b)
	n := 0
	for _, t := range lexrank.Stems(a) {
		if slices.Contains(bs, t) {
			n++
		}
	}
	return n
}

// sortHits orders hits by score, then energy, descending, then store order.
func sortHits(hits []Hit, pos map[*Entry]int) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Entry.Energy, a.Entry.Energy); c != 0 {
			return c
		}
		return cmp.Compare(pos[a.Entry], pos[b.Entry])
	})
}

// SupersededBy returns the living lessons a new lesson (question, answer)
// would supersede: those whose question asks the same thing (sameHeading)
// but whose answer differs. Lessons whose question is a one-word heading
// or holds the answer (statements) record nothing; query-time grouping
// handles them. Store.Add records them as "supersedes:<id>" source
// labels.
func (s *Store) SupersededBy(question, answer string) []string {
	if len(s.living) == 0 {
		return nil
	}
	qs := lexrank.Stems(question)
	as := lexrank.Stems(answer)
	if len(qs) < 2 || statementLike(qs, as) {
		return nil // a heading or a statement: grouped at query time only (no index needed)
	}
	li := s.ensureLexIndex()
	var out []string
	for _, h := range li.x.Search(question, lexrank.MinCoverage, v2Candidates).Hits {
		e := li.docs[h.Doc]
		if e == nil || strings.TrimSpace(e.Answer) == strings.TrimSpace(answer) {
			continue
		}
		eq := lexrank.Stems(e.Question)
		if !sameHeading(li, qs, eq) || statementLike(eq, lexrank.Stems(e.Answer)) {
			continue
		}
		if slices.Equal(lexrank.Stems(e.Answer), as) {
			continue // the same advice again: a duplicate, left to consolidation
		}
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

// sameHeading reports whether two questions ask the same thing, for
// supersession records: at least two terms in common, one of them
// distinctive, a weighted similarity of at least 0.6, and no distinctive
// word in one that the other lacks.
func sameHeading(li *lexIndex, a, b []string) bool {
	common, distinct := 0, false
	for _, t := range a {
		if slices.Contains(b, t) {
			common++
			distinct = distinct || li.distinctive(t)
		}
	}
	if common < 2 || !distinct || li.x.QuestionSimilarity(a, b, nil) < birthSameQuestion {
		return false
	}
	return !slices.ContainsFunc(a, func(t string) bool { return !slices.Contains(b, t) && li.distinctive(t) }) &&
		!slices.ContainsFunc(b, func(t string) bool { return !slices.Contains(a, t) && li.distinctive(t) })
}

// recordSupersedes returns sources with a "supersedes:<id>" label added for
// every living lesson a new lesson (question, answer) supersedes, in a
// store whose default ranking is v2 (a store kept on darwin-memo's ranking
// gets no labels). Labels already present are kept once.
func (s *Store) recordSupersedes(sources []string, question, answer string) []string {
	if s.Retrieval() == RetrievalDarwinMemo {
		return sources
	}
	for _, id := range s.SupersededBy(question, answer) {
		if l := SupersedesPrefix + id; !slices.Contains(sources, l) {
			sources = append(sources, l)
		}
	}
	return sources
}

// asksAbout reports whether e's question (its subject, for a note under a
// generic heading) holds some query term: a lesson matched by its answer
// alone, for a query holding a word no lesson knows, is not an answer.
func (li *lexIndex) asksAbout(e *Entry, qstems []string) bool {
	for _, t := range li.subject(e.Question, lexrank.Stems(e.Question), lexrank.Stems(e.Question+"\n"+e.Answer)) {
		if slices.Contains(qstems, t) {
			return true
		}
	}
	return false
}
