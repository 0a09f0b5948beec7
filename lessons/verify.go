package lessons

// VerifiedBody is a merged pull request's body with each ticket checked once against the store
// at its base: the action reads how many passed before it spends API requests measuring CI,
// then settles the same verdicts (SettleVerified) instead of checking again.
type VerifiedBody struct {
	tickets  []BodyTicket
	errs     []error
	verdicts []error // by position in tickets: nil when it passed
	passed   int
}

// VerifyBody parses body's tickets and verifies each against base (the receiver, the store at
// the pull request's base commit; nil refuses store-free tickets), as SettleBody does.
func (base *Store) VerifyBody(body string, opts VerifyOptions) *VerifiedBody {
	if base == nil {
		base = New("base", Options{})
	}
	tickets, errs := ParseTickets(body)
	v := &VerifiedBody{tickets: tickets, errs: errs, verdicts: make([]error, len(tickets))}
	for i, t := range tickets {
		err := base.VerifyTicket(t, opts)
		v.verdicts[i] = err
		if err == nil {
			v.passed++
		}
	}
	return v
}

// Passed is the number of tickets that passed verification.
func (v *VerifiedBody) Passed() int { return v.passed }
