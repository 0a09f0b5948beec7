// Package lessons reads and writes darwin-memo lesson stores and runs their
// ledger economics: decide (retrieval and tickets), settle, tick (expiry,
// upkeep, deaths, consolidation), import, pin and forget, plus render and
// doctor.
//
// The file format is that of the Python project darwin-memo
// (.darwin-memo/lessons.json), byte for byte: Parse followed by Marshal
// reproduces a darwin-memo file exactly. Economics follow the newest
// darwin-memo behaviour; deliberate differences are listed in docs/compat.md.
//
// Everything is deterministic: the clock and the id source are injected
// through Options, and new ids are derived from content hashes.
package lessons
