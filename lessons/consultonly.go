package lessons

import "errors"

// errConsultOnly refuses to write a store loaded without its history and
// graveyard (Options.ConsultOnly).
var errConsultOnly = errors.New("the store was loaded to be consulted only, without its history notes and graveyard (Options.ConsultOnly), so writing it would lose them")
