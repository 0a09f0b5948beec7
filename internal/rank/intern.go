package rank

import (
	"runtime"
	"sync"
)

// InternTexts returns the token id set of every text, exactly as
// d.Intern(Tokens(text)) called on each text in order would, including
// the ids d hands out to new tokens, but tokenising and hashing on all
// cores. It is the fast way to build the sets of a whole store at load.
//
// Each worker interns a contiguous run of texts into a private
// dictionary; the private dictionaries are then merged into d in worker
// order, which assigns new ids in the same first-sight order as the
// sequential calls.
func (d *Dict) InternTexts(texts []string) [][]uint32 {
	out := make([][]uint32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), (len(texts)+255)/256)
	if workers <= 1 {
		for i, t := range texts {
			out[i] = d.Intern(Tokens(t))
		}
		return out
	}
	chunk := (len(texts) + workers - 1) / workers
	locals := make([]*Dict, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(len(texts), (w+1)*chunk)
		local := NewDict()
		locals[w] = local
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scanner
			for i := lo; i < hi; i++ {
				sc = scanner{s: texts[i], buf: sc.buf[:0]}
				ids := make([]uint32, 0, len(texts[i])/6+4)
				for {
					tok, _, ok := sc.next(nil)
					if !ok {
						break
					}
					ids = append(ids, local.ID(tok)) // ID clones new tokens
				}
				out[i] = ids
			}
		}()
	}
	wg.Wait()
	// Merge in worker order: local id -> global id.
	remaps := make([][]uint32, workers)
	for w, local := range locals {
		remap := make([]uint32, local.Len())
		for id, word := range local.words {
			remap[id] = d.ID(word)
		}
		remaps[w] = remap
	}
	for w := range workers {
		lo, hi := w*chunk, min(len(texts), (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			remap := remaps[w]
			for i := lo; i < hi; i++ {
				ids := out[i]
				for j, id := range ids {
					ids[j] = remap[id]
				}
				if len(ids) == 0 {
					out[i] = nil
					continue
				}
				out[i] = sortedSet(ids)
			}
		}()
	}
	wg.Wait()
	return out
}
