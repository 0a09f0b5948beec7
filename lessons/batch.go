package lessons

// SettleFreeBatch settles the store-free tickets of one merged PR with the
// PR's delta as SettleBody does after verification: in order, with Bundle
// defaulting to the number of tickets that name a lesson no earlier ticket
// named (as SettleBody counts them), and each lesson moved at most once
// (an entry an earlier ticket already moved is neither credited nor
// charged again). It does not verify the tickets and does not tick; the
// selection benchmark, whose agents consult the very store they settle,
// drives the ledger through it.
func (s *Store) SettleFreeBatch(tickets []FreeTicket, delta float64, opts SettleOptions) []SettleResult {
	if opts.Bundle == 0 {
		named := make([][]string, len(tickets))
		for i, t := range tickets {
			named[i] = t.Named()
		}
		opts.Bundle = countBundle(named)
	}
	moved := map[string]bool{}
	out := make([]SettleResult, len(tickets))
	for i, t := range tickets {
		o := opts
		o.moved = moved
		out[i] = s.SettleFree(t, delta, o)
		if out[i].Landed {
			for _, id := range t.Named() {
				moved[id] = true
			}
		}
	}
	return out
}
