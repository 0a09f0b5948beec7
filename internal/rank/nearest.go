package rank

// MostSimilar returns the living lesson whose token set has the highest
// Jaccard similarity with the token set of question and answer (the first
// in living order on a tie) and that similarity; false when none shares a
// token with them: the lesson encoder's duplicate check. It computes the
// token sets of the living lessons that lack one (Source.TokenSets) and
// adds nothing to the dictionary for question and answer.
func (l *Library[K]) MostSimilar(living []K, question, answer string) (best K, similarity float64, found bool) {
	sets := l.src.TokenSets(living)
	known, distinct := l.src.Dict().LookupText(question, answer)
	if len(known) == 0 {
		return best, 0, false
	}
	for i, k := range living {
		if sim := JaccardKnown(known, distinct, sets[i]); sim > similarity {
			best, similarity, found = k, sim, true
		}
	}
	return best, similarity, found
}
