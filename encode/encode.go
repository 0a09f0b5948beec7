package encode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// DuplicateThreshold is the token Jaccard at or above which a new lesson
// is a near-duplicate of a living one (darwin-memo's merge threshold).
const DuplicateThreshold = 0.55

// Reflection parameters: every provider samples with this seed (where it
// supports one), and a lesson reply is capped at defaultMaxTokens.
const (
	seed             = 42
	defaultMaxTokens = 1024
)

// Living is a lesson already in the store, as dedup needs it.
type Living struct {
	ID       string
	Question string
	Answer   string
}

// Known is the store's living lessons as the duplicate check reads them: a store that keeps
// its lessons' token sets answers without tokenising them again (lessons.Store does).
type Known interface {
	// MostSimilar returns the living lesson whose token set (rank.Tokens of its question
	// and answer joined by a space) has the highest Jaccard similarity with the token set of
	// question and answer, the first in store order on a tie, and that similarity; "" and 0
	// when none shares a token with them.
	MostSimilar(question, answer string) (id string, similarity float64)
}

// livingList is a Known over a list of lessons, tokenised when asked.
type livingList []Living

func (l livingList) MostSimilar(question, answer string) (id string, similarity float64) {
	toks := rank.Tokens(question + " " + answer)
	for _, k := range l {
		if s := rank.Jaccard(toks, rank.Tokens(k.Question+" "+k.Answer)); s > similarity {
			id, similarity = k.ID, s
		}
	}
	return id, similarity
}

// Candidate is one lesson the encoder considered. Exactly one of these
// holds: it is added (Added), proposed only (Proposed: the author is not
// trusted), rejected (Rejected names the rule), or a duplicate
// (DuplicateOf names the living lesson it matched).
type Candidate struct {
	ID         string   // 12 hex of a content hash
	Question   string   // whitespace collapsed
	Answer     string   // whitespace collapsed
	Kind       string   // explicit, inferred, entity, cross_doc, experience
	Sources    []string // "pr#123", then "path:<file>" for every cited path, sorted
	RecordedTS string   // merge time, UTC ISO-8601 to the second ("2006-01-02T15:04:05+00:00")
	Cites      []string // document ids the lesson cites
	Paths      []string // changed files the lesson is about
	// From names the provider that produced the lesson ("none" for the
	// deterministic encoder).
	From string
	// Proposed is true when the lesson passed every rule but draws on a
	// source whose author is not OWNER, MEMBER or COLLABORATOR (the pull
	// request's, a review comment's or a commit's): it cites that source,
	// or uses a word or a run of words that only that source has. List it
	// in the bot PR body, do not add it.
	Proposed bool
	// Untrusted says why the lesson is Proposed.
	Untrusted string
	// Rejected is the rule the lesson broke, "" when it passed.
	Rejected string
	// DuplicateOf is the id of the living (or earlier new) lesson whose
	// token Jaccard with this one is >= DuplicateThreshold.
	DuplicateOf string
	Similarity  float64
	// Supersedes is the living lesson a model said this lesson replaces,
	// one of those it was shown (see askSupersession). The action records it
	// in the added lesson's sources as darwin-memo's "supersedes:<id>" label.
	Supersedes string
	// SupersedeNote says why the model's answer to the supersession question
	// was not recorded ("" when it was, or when nothing was asked).
	SupersedeNote string
}

// Added reports whether the lesson should be added to the store.
func (c Candidate) Added() bool {
	return c.Rejected == "" && c.DuplicateOf == "" && !c.Proposed
}

// Result is the outcome of encoding one PR.
type Result struct {
	Requested string // provider asked for, e.g. "ollama:qwen3:8b"
	// Fallback says why the deterministic encoder was used instead of the
	// requested provider ("" when it was not). The action prints it in the
	// step summary.
	Fallback   string
	Candidates []Candidate
}

// Added returns the candidates to add to the store.
func (r *Result) Added() []Candidate {
	return slices.DeleteFunc(slices.Clone(r.Candidates), func(c Candidate) bool { return !c.Added() })
}

// Proposed returns the candidates to list in the bot PR body only.
func (r *Result) Proposed() []Candidate {
	return slices.DeleteFunc(slices.Clone(r.Candidates), func(c Candidate) bool { return !c.Proposed || c.Rejected != "" || c.DuplicateOf != "" })
}

// Encoder turns merged PRs into candidate lessons with one provider.
type Encoder struct {
	provider Provider
	cfg      config
}

// New returns an encoder that asks provider (nil means the deterministic
// encoder). Options used: WithLogger, WithTrustedAssociations.
func New(provider Provider, opts ...Option) *Encoder {
	return &Encoder{provider: provider, cfg: newConfig(opts)}
}

// Encode asks the provider for lessons about pr, validates them, and
// checks them against living, the store's living lessons. known, when not
// nil, answers the duplicate check over them (a store that keeps its
// lessons' token sets, as lessons.Store does); nil means each living lesson
// is tokenised when asked. When the provider fails, asks to wait longer
// than allowed, replies with something that is not the lesson JSON, or
// every lesson it wrote is rejected, Encode falls back to the deterministic
// encoder and says why in Result.Fallback. It returns an error only when
// ctx is done during a model call or the nonce cannot be read.
func (e *Encoder) Encode(ctx context.Context, pr *PR, living []Living, known Known) (*Result, error) {
	if known == nil {
		known = livingList(living)
	}
	p := pr.Normalize()
	docs := p.Documents()
	res := &Result{Requested: "none"}
	chk := newChecker(docs)
	pv := newProvenance(p, docs, e.cfg.isTrusted, chk.framing)

	var cands []Candidate
	if e.provider != nil {
		res.Requested = e.provider.Name()
		user, err := userPrompt(e.cfg.rand, p, docs)
		if err != nil {
			return nil, err
		}
		req := Request{System: systemPrompt, User: user, Schema: Schema, MaxTokens: defaultMaxTokens,
			Name: "lessons", Purpose: "Record the lessons (0 to 5) learned from the pull request data."}
		reply, err := e.ask(ctx, req)
		var raws []RawLesson
		if err == nil {
			if raws, err = ParseLessons(reply); err != nil {
				err = fmt.Errorf("%s: unusable reply: %w", res.Requested, err)
			}
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("encode PR #%d: %w", p.Number, ctx.Err())
		case err != nil:
			res.Fallback = redactSecrets(err.Error())
		default:
			cands = e.validate(p, chk, pv, raws, res.Requested)
			if len(cands) > 0 && !slices.ContainsFunc(cands, func(c Candidate) bool { return c.Rejected == "" }) {
				res.Fallback = fmt.Sprintf("%s: every lesson the model wrote was rejected", res.Requested)
			}
		}
		if res.Fallback != "" {
			e.cfg.logger.WarnContext(ctx, "falling back to the deterministic encoder", "provider", res.Requested, "reason", res.Fallback)
		}
	}
	if e.provider == nil || res.Fallback != "" {
		cands = append(cands, e.validate(p, chk, pv, Deterministic(p), "none")...)
	}
	e.dedup(cands, known, living)
	limit(cands)
	if e.provider != nil {
		e.askSupersession(ctx, cands, living)
	}
	res.Candidates = cands
	return res, nil
}

// validate checks every raw lesson and fills in birth data.
func (e *Encoder) validate(p *PR, chk *checker, pv *provenance, raws []RawLesson, from string) []Candidate {
	out := make([]Candidate, 0, len(raws))
	for _, raw := range raws {
		c := Candidate{
			Question: oneLine(raw.Question),
			Answer:   oneLine(raw.Answer),
			Kind:     raw.Kind,
			Cites:    raw.Evidence,
			Paths:    raw.Paths,
			From:     from,
		}
		c.Rejected = chk.check(raw)
		c.ID = lessonID(c.Question, c.Answer)
		c.RecordedTS = p.MergedAt.UTC().Format("2006-01-02T15:04:05+00:00")
		if p.MergedAt.IsZero() {
			c.RecordedTS = ""
		}
		c.Sources = lessonSources(p.Number, c, chk)
		c.Untrusted = pv.source(c.Question+"\n"+c.Answer, c.Cites)
		c.Proposed = c.Untrusted != ""
		out = append(out, c)
	}
	return out
}

// dedup marks candidates whose token Jaccard with a living lesson, or with
// an earlier passing candidate, is >= DuplicateThreshold. The living lessons
// come first: an earlier candidate is named only when it is strictly more
// similar than every living lesson.
//
// A lesson that asks a living lesson's question again (case, spacing and
// final punctuation aside) with another answer is not a duplicate of it: it
// replaces it, and the store records that when it is added (Store.Add). The
// living lessons' texts tell which those are.
func (e *Encoder) dedup(cands []Candidate, known Known, living []Living) {
	var earlier livingList // earlier candidates that passed
	for i := range cands {
		c := &cands[i]
		if c.Rejected != "" {
			continue
		}
		bestID, best := nearestLiving(c, known, living)
		if id, s := earlier.MostSimilar(c.Question, c.Answer); s > best {
			bestID, best = id, s
		}
		if best >= DuplicateThreshold {
			c.DuplicateOf, c.Similarity = bestID, best
			continue
		}
		earlier = append(earlier, Living{ID: c.ID, Question: c.Question, Answer: c.Answer})
	}
}

// limit rejects, with the limit rule, every new lesson after the first
// MaxLessons that passed the rules and are not duplicates.
func limit(cands []Candidate) {
	kept := 0
	for i := range cands {
		c := &cands[i]
		if c.Rejected != "" || c.DuplicateOf != "" {
			continue
		}
		if kept == MaxLessons {
			c.Rejected = fmt.Sprintf("%s: more than %d lessons", reasonLimit, MaxLessons)
			continue
		}
		kept++
	}
}

// lessonID is the first 12 hex characters of the SHA-256 of the
// lower-cased, whitespace-collapsed question and answer.
func lessonID(q, a string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(oneLine(q)) + "\n" + strings.ToLower(oneLine(a))))
	return hex.EncodeToString(sum[:])[:12]
}

// lessonSources names the PR and every changed file the lesson cites
// (through paths, diff:<path> or review:<id> documents).
func lessonSources(number int, c Candidate, chk *checker) []string {
	paths := map[string]bool{}
	for _, p := range c.Paths {
		if chk.paths[p] {
			paths[p] = true
		}
	}
	for _, id := range c.Cites {
		if d, ok := chk.docs[id]; ok && d.Path != "" && chk.paths[d.Path] {
			paths[d.Path] = true
		}
	}
	out := []string{fmt.Sprintf("pr#%d", number)}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		out = append(out, "path:"+p)
	}
	return out
}

// ask makes one model call under the encoder's per-call timeout.
func (e *Encoder) ask(ctx context.Context, req Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	return e.provider.Reflect(ctx, req)
}
