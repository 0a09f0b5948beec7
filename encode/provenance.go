package encode

import (
	"cmp"
	"fmt"
	"strings"
)

// provenanceShingle is the number of consecutive words a lesson must share with a document
// to be taken as quoting it (word shingles, Broder 1997).
const provenanceShingle = 4

// provenance tells the documents a lesson may draw on with full trust from those it may not:
// a review comment or a commit whose author is not trusted, and every document when the pull
// request's author is not. A lesson draws on an untrusted document when it cites it, when one
// of its content words occurs in that document and in no trusted one, or when it shares a run
// of provenanceShingle words with that document that no trusted document has.
type provenance struct {
	untrusted     map[string]string          // document id -> why it is untrusted
	order         []string                   // untrusted ids in document order
	words         map[string]map[string]bool // untrusted id -> its content words
	shingles      map[string]map[string]bool // untrusted id -> its shingles
	trustedWords  map[string]bool
	trustedShingl map[string]bool
	framing       map[string]bool
}

// newProvenance sorts the documents of p by the trust of their authors. diff and ci documents
// are the pull request author's (the author proposed the diff; CI only ran it).
func newProvenance(p *PR, docs []Document, trusted func(association string) bool, framing map[string]bool) *provenance {
	pv := &provenance{
		untrusted: map[string]string{}, words: map[string]map[string]bool{}, shingles: map[string]map[string]bool{},
		trustedWords: map[string]bool{}, trustedShingl: map[string]bool{}, framing: framing,
	}
	why := map[string]string{}
	if !trusted(p.AuthorAssociation) {
		for _, d := range docs {
			why[d.ID] = fmt.Sprintf("%s by %s (%s), not trusted", d.ID, cmp.Or(p.Author, "no GitHub account"), cmp.Or(p.AuthorAssociation, "NONE"))
		}
	}
	for _, r := range p.Reviews {
		if id := fmt.Sprintf("review:%d", r.ID); why[id] == "" && !trusted(r.AuthorAssociation) {
			why[id] = fmt.Sprintf("%s by %s (%s), not trusted", id, cmp.Or(r.Author, "no GitHub account"), cmp.Or(r.AuthorAssociation, "NONE"))
		}
	}
	for _, c := range p.Commits {
		if id := "commit:" + c.Short(); why[id] == "" && !trusted(c.AuthorAssociation) {
			why[id] = fmt.Sprintf("%s by %s (%s), not trusted", id, cmp.Or(c.Author, "no GitHub account"), cmp.Or(c.AuthorAssociation, "NONE"))
		}
	}
	for _, d := range docs {
		words, shingles := pv.features(d.Text)
		add := func(set map[string]bool, items []string) {
			for _, x := range items {
				set[x] = true
			}
		}
		if why[d.ID] == "" {
			add(pv.trustedWords, words)
			add(pv.trustedShingl, shingles)
			continue
		}
		if _, seen := pv.untrusted[d.ID]; !seen {
			pv.order = append(pv.order, d.ID)
			pv.words[d.ID], pv.shingles[d.ID] = map[string]bool{}, map[string]bool{}
		}
		pv.untrusted[d.ID] = why[d.ID]
		add(pv.words[d.ID], words)
		add(pv.shingles[d.ID], shingles)
	}
	return pv
}

// features returns the content words (grounding tokens that are not framing words) and the
// word shingles of text, in text order.
func (pv *provenance) features(text string) (words, shingles []string) {
	words = contentWords(text, pv.framing)
	ws := strings.Fields(normalizeWords(text))
	for i := 0; i+provenanceShingle <= len(ws); i++ {
		shingles = append(shingles, strings.Join(ws[i:i+provenanceShingle], " "))
	}
	return words, shingles
}

// source returns why a lesson with text and cites draws on an untrusted document ("cites
// review:7 by drive-by (NONE), not trusted"), or "".
func (pv *provenance) source(text string, cites []string) string {
	for _, id := range cites {
		if why, ok := pv.untrusted[id]; ok {
			return "cites " + why
		}
	}
	if len(pv.order) == 0 {
		return ""
	}
	words, shingles := pv.features(text)
	for _, id := range pv.order {
		for _, w := range words {
			if pv.words[id][w] && !pv.trustedWords[w] {
				return fmt.Sprintf("the word %q comes from %s", w, pv.untrusted[id])
			}
		}
		for _, s := range shingles {
			if pv.shingles[id][s] && !pv.trustedShingl[s] {
				return fmt.Sprintf("the words %q come from %s", s, pv.untrusted[id])
			}
		}
	}
	return ""
}
