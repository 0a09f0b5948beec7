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
//
// The main entry points, in the order the action uses them:
//
//	s, err := lessons.Load(ctx, path)           // or Parse(name, data)
//	base, _ := lessons.Parse(path, baseBytes)   // the store at the PR's base
//	rep := s.SettleBody(base, prBody, delta, lessons.SettleOptions{Source: "ci", Evidence: ev}, lessons.TickOptions{})
//	s.Add(lessons.NewLesson{Question: q, Answer: a, Sources: []string{"pr#12"}, RecordedTS: mergedAt})
//	doc, _ := s.Render(lessons.RenderOptions{Budget: 25 << 10})
//	err = s.Save(ctx)                           // or Marshal() for the bytes
//
// The bot branch's store and the base branch's meet in a three-way merge of their documents
// (internal/storedoc's Merge; the rules are in docs/merge.md) that ParseWith loads, and
// top-level keys darwin-memo ignores, such as the action's record, are kept as extensions
// (Store.Extension, Store.SetExtension). The file itself (its lock, atomic writes, side files)
// is internal/storedoc's.
//
// A Store is not safe for concurrent use; the file lock (LoadLocked, Save)
// serialises processes, not goroutines.
package lessons
