package lessons

import (
	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// Retrieval names a ranking (rank.Ranking). Tickets record the one they
// were minted with (the vN of a store-free ticket), so the action verifies
// each ticket with the ranking that produced it.
type Retrieval = rank.Ranking

// The rankings: darwin-memo's (tickets v1) and BM25F, the default
// (tickets v2; docs/retrieval.md).
const (
	RetrievalDarwinMemo = rank.RankingDarwinMemo
	RetrievalBM25F      = rank.RankingBM25F
)

// ParseRetrieval reads a retrieval name: "darwin-memo" (or "v1") or
// "bm25f" (or "v2").
func ParseRetrieval(s string) (Retrieval, error) { return rank.ParseRanking(s) }

// ticketVersion is the store-free ticket version minted with r.
func ticketVersion(r Retrieval) int {
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
	for _, mb := range s.layout.extraCfg {
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

func (s *Store) resolveRetrieval(r Retrieval) Retrieval {
	if r == "" {
		return s.Retrieval()
	}
	return r
}
