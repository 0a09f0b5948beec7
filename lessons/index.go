package lessons

import (
	"runtime"
	"sync"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// index is the retrieval index of a store: a rank.Index over the living
// entries' token sets, built once (on first use) and kept up to date by
// add and bury. Document numbers follow insertion order, which is the
// living order, so ties fall back to store order as in darwin-memo.
type index struct {
	x    *rank.Index  // darwin-memo's ranking; nil until first used
	docs []*Entry     // by document number
	bm   *bm25Index   // the BM25F ranking's index; nil until first used
	sigs *similarSigs // MostSimilar's token signatures; nil until first used
}

// ensureIndexShell returns the store's index holder, creating an empty one
// (neither ranking's index built) if needed.
func (s *Store) ensureIndexShell() *index {
	if s.idx == nil {
		s.idx = &index{}
	}
	return s.idx
}

// dict returns the store's token dictionary, creating it on first use.
func (s *Store) tokenDict() *rank.Dict {
	if s.dict == nil {
		s.dict = rank.NewDict()
	}
	return s.dict
}

// tokenSet returns e's token id set (question + " " + answer), interning it
// on first use.
func (s *Store) tokenSet(e *Entry) []uint32 {
	if !e.hasSet {
		e.set = s.tokenDict().InternText(e.Question, e.Answer)
		e.hasSet = true
	}
	return e.set
}

// ensureSets computes the token sets of many entries on all cores. Each
// worker tokenises and interns a contiguous chunk into a private
// dictionary; the private dictionaries are then merged into the store's in
// chunk order, which assigns exactly the ids a serial pass in entry order
// would, so ids never depend on scheduling.
func (s *Store) ensureSets(es []*Entry) {
	var todo []*Entry
	for _, e := range es {
		if !e.hasSet {
			todo = append(todo, e)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(todo) < 2048 || workers < 2 {
		for _, e := range todo {
			s.tokenSet(e)
		}
		return
	}
	chunk := (len(todo) + workers - 1) / workers
	locals := make([]*rank.Dict, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min(len(todo), (w+1)*chunk)
		if lo >= hi {
			break
		}
		// The first chunk interns straight into the store's dictionary (no
		// other goroutine touches it in this phase); later chunks use
		// private ones that are merged afterwards.
		d := s.tokenDict()
		if w > 0 {
			d = rank.NewDict()
			locals[w] = d
		} else {
			for _, e := range todo[lo:hi] {
				e.hasSet = true // set below, before anyone reads it
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range todo[lo:hi] {
				e.set = d.InternText(e.Question, e.Answer)
			}
		}()
	}
	wg.Wait()
	global := s.tokenDict()
	for w, d := range locals {
		if d == nil { // chunk 0 (already global ids) or an empty chunk
			continue
		}
		remap := make([]uint32, d.Len())
		for id := range remap {
			remap[id] = global.ID(d.Word(uint32(id)))
		}
		lo, hi := w*chunk, min(len(todo), (w+1)*chunk)
		part := todo[lo:hi]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range part {
				rank.RemapSet(e.set, remap)
				e.hasSet = true
			}
		}()
	}
	wg.Wait()
}

// ensureIndex builds the index over the living entries if needed.
func (s *Store) ensureIndex() *index {
	if s.idx != nil && s.idx.x != nil {
		return s.idx
	}
	s.ensureSets(s.living)
	sets := make([][]uint32, len(s.living))
	docs := make([]*Entry, len(s.living))
	for i, e := range s.living {
		sets[i] = s.tokenSet(e)
		e.doc = i
		docs[i] = e
	}
	ix := s.ensureIndexShell()
	ix.x, ix.docs = rank.NewIndexIDs(s.tokenDict(), sets), docs
	return ix
}

func (ix *index) add(s *Store, e *Entry) {
	if ix.x != nil {
		e.doc = ix.x.AddIDs(s.tokenSet(e))
		ix.docs = append(ix.docs, e)
	}
	if ix.bm != nil {
		ix.bm.add(e)
	}
}

func (ix *index) remove(e *Entry) {
	if ix.bm != nil {
		ix.bm.remove(e)
	}
	if ix.x != nil && e.doc >= 0 && e.doc < len(ix.docs) && ix.docs[e.doc] == e {
		ix.x.Remove(e.doc)
		ix.docs[e.doc] = nil
	}
}

// bm25Index is a rank.BM25F over entries, with the entry of each document.
type bm25Index struct {
	x    *rank.BM25F
	docs []*Entry // by document number; nil once removed
	doc  map[*Entry]int
}

func newBM25Index(es []*Entry) *bm25Index {
	bi := &bm25Index{x: rank.NewBM25F(), doc: make(map[*Entry]int, len(es))}
	for _, e := range es {
		bi.add(e)
	}
	return bi
}

func (bi *bm25Index) add(e *Entry) {
	d := bi.x.Add(e.Question, e.Answer)
	bi.docs = append(bi.docs, e)
	bi.doc[e] = d
}

func (bi *bm25Index) remove(e *Entry) {
	if d, ok := bi.doc[e]; ok {
		bi.x.Remove(d)
		bi.docs[d] = nil
		delete(bi.doc, e)
	}
}

// ensureBM25Index builds the BM25F index over the living entries if needed.
func (s *Store) ensureBM25Index() *bm25Index {
	ix := s.ensureIndexShell()
	if ix.bm == nil {
		ix.bm = newBM25Index(s.living)
	}
	return ix.bm
}
