package rank

import (
	"runtime"
	"sync"
)

// InternPairs returns the id set of each of n question–answer pairs, pair
// i being pair(i): exactly d.InternText(question, answer) called on each
// pair in order, including the ids d hands out to new tokens, but on all
// cores when there are many. pair may be called concurrently.
//
// Each worker interns a contiguous run of pairs: the first into d itself
// (no other goroutine touches d meanwhile), the others into private
// dictionaries merged into d afterwards in run order, which assigns new
// ids in the order a serial pass would, so ids never depend on scheduling.
func (d *Dict) InternPairs(n int, pair func(i int) (question, answer string)) [][]uint32 {
	out := make([][]uint32, n)
	workers := runtime.GOMAXPROCS(0)
	if n < 2048 || workers < 2 {
		for i := range n {
			out[i] = d.InternText(pair(i))
		}
		return out
	}
	chunk := (n + workers - 1) / workers
	locals := make([]*Dict, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		if lo >= hi {
			break
		}
		into := d
		if w > 0 {
			into = NewDict()
			locals[w] = into
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i] = into.InternText(pair(i))
			}
		}()
	}
	wg.Wait()
	for w, local := range locals {
		if local == nil { // the first run (d's ids already) or an empty one
			continue
		}
		remap := make([]uint32, local.Len())
		for id := range remap {
			remap[id] = d.ID(local.Word(uint32(id)))
		}
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				RemapSet(out[i], remap)
			}
		}()
	}
	wg.Wait()
	return out
}
