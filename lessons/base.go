package lessons

// CurrentAsBase returns a copy of the store to verify a pull request's tickets against when the
// store at its base is not known (the CLI's settle --body without --base): store-free tickets
// are verified against the store as it is now, and so are compat tickets' pending records (the
// copy has no pending tickets, so none was "already pending at base").
func (s *Store) CurrentAsBase() (*Store, error) {
	doc, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	b, err := ParseWith(s.name, doc, s.opts)
	if err != nil {
		return nil, err
	}
	b.pending = nil
	return b, nil
}
