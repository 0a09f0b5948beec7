package lessons

import (
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

func (s *Store) nowISO() string {
	return s.opts.Now().UTC().Truncate(time.Second).Format("2006-01-02T15:04:05+00:00")
}

// log buffers one event; Save appends the buffer to the event log.
func (s *Store) log(name string, payload ...pyjson.Member) {
	s.touchLedger()
	s.events = append(s.events, storedoc.NewEvent(name, s.tick, s.nowISO(), payload...))
}

// touchLedger makes a plain store (one without a ledger block) a ledger
// store once a ledger operation runs, as darwin-memo's Ledger.save writes
// the full block.
func (s *Store) touchLedger() {
	if !s.layout.hasLedger {
		s.layout.hasLedger, s.layout.hasSettledRuns, s.layout.hasLedgerCfg = true, true, true
	}
}
