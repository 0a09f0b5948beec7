package sim

// Entry is one living entry of an arm's store, described by the simulated
// lessons it carries (one, or several after a merge).
type Entry struct {
	Key     string
	Lessons []int
}

// Consultation is what an arm answered for one task: the entry the agent acts
// on, the supporting entries it also cited, and the ticket that will carry
// the outcome back. A silent answer has an empty Decider.Key and no Ticket.
type Consultation struct {
	Ticket     string
	Decider    Entry
	Supporters []Entry
}

// Silent reports whether the arm gave no advice.
func (c Consultation) Silent() bool { return c.Decider.Key == "" }

// Arm is a selection policy under test: a lesson store that agents consult
// and that learns from measured outcomes.
type Arm interface {
	// Name identifies the arm in reports ("ledger", "keep_everything", ...).
	Name() string
	// Add admits a lesson the encoder produced, before PR pr's tasks.
	Add(l Lesson, pr int) error
	// Consult answers one task's query during PR pr.
	Consult(query string, pr int) (Consultation, error)
	// Settle delivers, during merged PR pr, the delta CI measured for an
	// earlier (or the same) PR to the tickets that PR carried, as the action
	// does for one merged PR. It reports whether a settlement landed.
	Settle(tickets []Consultation, delta float64, pr int) (landed bool, err error)
	// EndPR closes merged PR pr; landed is true when at least one
	// settlement landed during it.
	EndPR(pr int, landed bool) error
	// Living lists the living entries, in a deterministic order.
	Living() []Entry
}

// TransitionSettler is an Arm that also takes the regressions CI counted
// in a delta (the action knows improvements and regressions apart). Run
// calls SettleTransitions instead of Settle for such an arm.
type TransitionSettler interface {
	SettleTransitions(tickets []Consultation, delta float64, regressions int, pr int) (landed bool, err error)
}
