package lessons

// Causes returns the one rule that says why a dead entry died, for reports that list many
// deaths (it indexes lineages once): Cause's answer ("merged" when an entry's lineage names it,
// the cause of its last death or burial note, a search of its notes' text), except that an
// entry of the graveyard whose notes say nothing died by the rule a tick applies, "executed"
// when it is in the damaged set and "starved" otherwise, rather than "unknown".
func (s *Store) Causes() func(id string) string {
	heirs := s.heirs()
	return func(id string) string {
		c := s.causeOf(id, heirs)
		if _, dead := s.Dead(id); dead && c == "unknown" {
			return s.cause(id)
		}
		return c
	}
}
