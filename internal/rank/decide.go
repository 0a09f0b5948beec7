package rank

import (
	"fmt"
	"slices"
	"strings"
)

// A Consult is a query asked to decide (semantics §4.3).
type Consult[K comparable] struct {
	Query[K]
	// Exclude, when set, names a reason a hit may neither decide nor
	// support ("" to keep it): Decide passes over it to the next candidate.
	Exclude func(K) string
	// Provisional lets lessons still on probation answer when every hit is
	// one: the best such hit's answer, marked with ProvisionalNote, the
	// probationary hits (at most MaxSupporters) supporting and none
	// deciding.
	Provisional   bool
	MaxSupporters int
	// Conflict is the token-set Jaccard similarity from which another hit
	// of darwin-memo's ranking conflicts with the decider's advice.
	Conflict float64
}

// ProvisionalNote starts the answer of a provisional decide.
const ProvisionalNote = "(provisional: imported lesson on probation, not yet measured in this repository) "

// An Exclusion is a hit Consult.Exclude passed over, and why.
type Exclusion struct {
	ID     string
	Reason string
}

// A Verdict is what a consult decided.
type Verdict[K comparable] struct {
	Hits        []Result[K] // the ranking's, before exclusions
	Answer      string      // annotated answer; "" when silent
	Silent      bool
	Provisional bool
	Decider     string   // "" for none
	Supporting  []string // other hits in rank order, never nil
	Withheld    []string // probationary ids withheld from a silent answer
	Excluded    []Exclusion
}

// Decide consults the library: the best-ranked hit that may decide answers
// and the other hits support it. Supporters follow darwin-memo's rule
// whatever the ranking: every other hit of darwin-memo's ranking for the
// query, in its rank order, probationary ones included, superseded ones
// not. With BM25F the first hit that may decide and is not superseded
// decides when its confidence reaches DecideThreshold, no later one, and
// speaks alone; with darwin-memo's ranking
// the answer lists the hits that conflict with the decider's, newest first.
func (l *Library[K]) Decide(living []K, c Consult[K]) (*Verdict[K], error) {
	hits, err := l.Search(living, c.Query)
	if err != nil {
		return nil, err
	}
	v := &Verdict[K]{Hits: hits}
	bm25 := c.Ranking == RankingBM25F
	if c.Exclude != nil {
		var kept []Result[K]
		for _, h := range hits {
			if why := c.Exclude(h.Lesson); why != "" {
				v.Excluded = append(v.Excluded, Exclusion{l.src.Lesson(h.Lesson).ID, why})
				continue
			}
			kept = append(kept, h)
		}
		hits = kept
	}
	mayDecide := func(h Result[K]) bool { return l.src.Lesson(h.Lesson).MayDecide }
	if bm25 {
		hits = slices.DeleteFunc(slices.Clone(hits), func(h Result[K]) bool { return h.SupersededBy != "" })
		// The confidence is calibrated for the first lesson that may decide
		// (ConfidenceModel), so that lesson alone decides, when sure enough:
		// a later one does not decide past it.
		if i := slices.IndexFunc(hits, mayDecide); i >= 0 && hits[i].Confidence < DecideThreshold {
			hits = hits[:i]
		}
		hits = slices.DeleteFunc(hits, func(h Result[K]) bool { return h.Confidence < DecideThreshold })
	}
	i := slices.IndexFunc(hits, mayDecide)
	if i < 0 {
		for _, h := range hits {
			v.Withheld = append(v.Withheld, l.src.Lesson(h.Lesson).ID)
		}
	} else {
		decider := hits[i].Lesson
		d := l.src.Lesson(decider)
		v.Decider = d.ID
		if v.Supporting, err = l.supporters(living, c.Query, decider, hits); err != nil {
			return nil, err
		}
		v.Supporting = slices.DeleteFunc(v.Supporting, func(id string) bool {
			return slices.ContainsFunc(v.Excluded, func(x Exclusion) bool { return x.ID == id })
		})
		if bm25 {
			v.Answer = d.Answer + "\n" + AgeLine(d)
		} else {
			v.Answer = l.annotate(decider, hits, c.Conflict)
		}
	}
	if i < 0 && c.Provisional && len(hits) > 0 {
		top := l.src.Lesson(hits[0].Lesson)
		v.Answer = ProvisionalNote + top.Answer + "\n" + AgeLine(top)
		v.Supporting, v.Withheld, v.Provisional = v.Withheld[:min(len(v.Withheld), c.MaxSupporters)], nil, true
	}
	v.Silent = v.Answer == "" || (v.Decider == "" && len(v.Supporting) == 0)
	if v.Silent {
		v.Answer, v.Decider, v.Supporting = "", "", nil
	}
	if v.Supporting == nil {
		v.Supporting = []string{}
	}
	return v, nil
}

// supporters returns darwin-memo's hits for q (its filters and k) other
// than decider and other than superseded lessons; hits are q's ranking's,
// which with darwin-memo's ranking are darwin-memo's hits already.
func (l *Library[K]) supporters(living []K, q Query[K], decider K, hits []Result[K]) ([]string, error) {
	if q.Ranking != RankingDarwinMemo {
		q.Ranking = RankingDarwinMemo
		var err error
		if hits, err = l.Search(living, q); err != nil {
			return nil, err
		}
	}
	sup := NewSupersession(living, l.src)
	out := []string{}
	for _, h := range hits {
		if _, superseded := sup.Latest(h.Lesson); h.Lesson != decider && !superseded {
			out = append(out, l.src.Lesson(h.Lesson).ID)
		}
	}
	return out, nil
}

// annotate renders the decider's answer, or a conflict block when other
// hits overlap it at the conflict threshold (darwin-memo's temporal.py
// render_consult).
func (l *Library[K]) annotate(decider K, hits []Result[K], threshold float64) string {
	others := []K{decider}
	for _, h := range hits {
		if h.Lesson != decider {
			others = append(others, h.Lesson)
		}
	}
	sets := l.src.TokenSets(others)
	cluster := []Lesson{l.src.Lesson(decider)}
	for i, k := range others[1:] {
		if JaccardIDs(sets[0], sets[i+1]) >= threshold {
			cluster = append(cluster, l.src.Lesson(k))
		}
	}
	if len(cluster) == 1 {
		return cluster[0].Answer + "\n" + AgeLine(cluster[0])
	}
	slices.SortStableFunc(cluster, func(a, b Lesson) int {
		if c := strings.Compare(b.Recorded, a.Recorded); c != 0 {
			return c
		}
		return b.Born - a.Born
	})
	var sb strings.Builder
	sb.WriteString("conflicting/overlapping advice, newest first:")
	for _, ls := range cluster {
		sb.WriteString("\n- ")
		sb.WriteString(ls.Answer)
		sb.WriteByte(' ')
		sb.WriteString(AgeLine(ls))
	}
	return sb.String()
}

// AgeLine is "[recorded <ts>; born tick B; last settled tick L]".
func AgeLine(ls Lesson) string {
	rec := "age unknown"
	if ls.Recorded != "" {
		rec = "recorded " + ls.Recorded
	}
	settled := "never settled"
	if ls.Settled >= 0 {
		settled = fmt.Sprintf("last settled tick %d", ls.Settled)
	}
	return fmt.Sprintf("[%s; born tick %d; %s]", rec, ls.Born, settled)
}
