// Package pyjson reads and writes JSON the way CPython's json module does,
// for the darwin-memo store format: json.loads's grammar (NaN and ±Infinity
// included, lone surrogates kept), order-preserving values whose numbers keep
// their Python spelling, errors that name the JSON path, and
// json.dumps(indent=2, ensure_ascii=True) output with Python's float repr.
// Like encoding/json it owns both directions: Decoder and Parse read, Writer
// and Compact write.
package pyjson
