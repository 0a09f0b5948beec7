// Package storedoc is the store's document on disk, apart from what its lessons mean: the file
// as a writer holds it (File: what was read, for the stale-writer check, and the advisory lock
// on its NAME.lock sidecar), atomic writes, the side files next to it (the event log, the
// .gitignore of a new .darwin-memo directory), the top-level keys darwin-memo
// ignores (Extensions, and ExtensionOf without loading the store), and the three-way merge of two store documents with their common
// ancestor. It reads and writes through internal/pyjson, so it spells values as darwin-memo
// does; package lessons owns the store's model and builds on it (storedoc never imports
// lessons).
package storedoc
