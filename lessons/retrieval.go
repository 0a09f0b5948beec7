package lessons

import (
	"fmt"
	"strings"

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
	// RetrievalBM25F is this project's ranking, the default
	// (docs/retrieval.md): BM25F over the question and the answer
	// (internal/rank), the question weighted above the answer; decide
	// answers only at a confidence of DecideThreshold or more. Tickets: v2.
	RetrievalBM25F Retrieval = "bm25f"
)

// ParseRetrieval reads a retrieval name: "darwin-memo" (or "v1") or
// "bm25f" (or "v2").
func ParseRetrieval(s string) (Retrieval, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "darwin-memo", "v1":
		return RetrievalDarwinMemo, nil
	case "bm25f", "v2":
		return RetrievalBM25F, nil
	}
	return "", fmt.Errorf("unknown retrieval %q; use bm25f (v2) or darwin-memo (v1)", s)
}

// TicketVersion is the store-free ticket version minted with r.
func (r Retrieval) TicketVersion() int {
	if r == RetrievalDarwinMemo {
		return 1
	}
	return 2
}

// retrievalOfVersion is the ranking a vN ticket was minted with.
func retrievalOfVersion(v int) Retrieval {
	if v <= 1 {
		return RetrievalDarwinMemo
	}
	return RetrievalBM25F
}

// retrievalKey is the store-config key ("config": {..., "retrieval":
// "darwin-memo"}) that makes darwin-memo's ranking a store's default.
// darwin-memo ignores unknown store-config keys; we round-trip them.
const retrievalKey = "retrieval"

// Retrieval returns the store's default ranking: the one its config names
// ("retrieval": "darwin-memo" or "bm25f"), else Options.Retrieval, else
// BM25F.
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
	return RetrievalBM25F
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
