package rank

// MostSimilar returns the living lesson whose token set has the highest
// Jaccard similarity with the token set of question and answer (the first
// in living order on a tie) and that similarity; false when none shares a
// token with them: the lesson encoder's duplicate check. It adds nothing
// to the dictionary and computes no token sets: a lesson whose set is
// already computed (Source.CachedSet) is compared by its set, and any other
// is tokenised against a table of the query's own tokens ([Similar]), its
// distinct tokens counted only when the query tokens it holds could beat
// the best so far. Both compute the quotient from the same integers as
// [JaccardKnown], so the answer does not depend on which lessons have
// sets. The 512-bit [Signature] of each lesson tokenised is kept for the
// next call (the encoder asks about each of a pull request's lessons in
// turn), which then tokenises only the lessons whose signature lets them
// beat the best so far.
func (l *Library[K]) MostSimilar(living []K, question, answer string) (best K, similarity float64, found bool) {
	var (
		known    []uint32 // the query's ids in the dictionary, once a lesson has a set
		distinct int
		looked   bool
		q        *Similar // once a lesson has no set
	)
	for i, k := range living {
		set, ok := l.src.CachedSet(k)
		if !ok {
			if q == nil {
				q = NewSimilar(question, answer)
				l.sizeSignatures(len(living))
			}
			qs, as := l.src.Text(k)
			if sim, ok := q.Above(similarity, l.signature(i, k), qs, as); ok {
				best, similarity, found = k, sim, true
			}
			continue
		}
		if !looked {
			known, distinct = l.src.Dict().LookupText(question, answer)
			looked = true
		}
		if len(known) == 0 {
			continue
		}
		// The similarity is at most the smaller set's size over the larger's
		// (rounding is monotonic, so the bound holds in floating point too): a
		// set that cannot beat the best so far is not intersected.
		if lo, hi := min(distinct, len(set)), max(distinct, len(set)); hi == 0 || float64(lo)/float64(hi) <= similarity {
			continue
		}
		if sim := JaccardKnown(known, distinct, set); sim > similarity {
			best, similarity, found = k, sim, true
		}
	}
	return best, similarity, found
}

// sizeSignatures sizes the kept signatures for n living lessons, by
// position in the living list, each with the lesson it summarises: a
// lesson no longer at its position (the list changed) is tokenised again.
// Only MostSimilar reads them; token sets and the dictionary do not depend
// on them.
func (l *Library[K]) sizeSignatures(n int) {
	if n > len(l.sigKeys) {
		l.sigKeys = append(l.sigKeys, make([]K, n-len(l.sigKeys))...)
		l.sigs = append(l.sigs, make([]Signature, n-len(l.sigs))...)
	}
	clear(l.sigKeys[n:]) // do not keep buried lessons
	l.sigKeys, l.sigs = l.sigKeys[:n], l.sigs[:n]
}

// signature returns the signature of k, the living lesson at position i;
// the zero Signature (to be computed) if i held another lesson.
func (l *Library[K]) signature(i int, k K) *Signature {
	if l.sigKeys[i] != k {
		l.sigKeys[i], l.sigs[i] = k, Signature{}
	}
	return &l.sigs[i]
}
