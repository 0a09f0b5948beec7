package lessons

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// parseOutcome is all a parse gives that the speculation could change: the
// error, or the written store, its warnings, the living order and byID,
// and the calls to Options.NewID in order.
func parseOutcome(t *testing.T, data []byte, opts Options, h parseHints) (string, specTaken, error) {
	t.Helper()
	var mu sync.Mutex
	var calls []string
	newID := opts.NewID
	if newID == nil {
		newID = ContentID
	}
	opts.NewID = func(parts ...string) string {
		mu.Lock()
		calls = append(calls, strings.Join(parts, "|"))
		mu.Unlock()
		return newID(parts...)
	}
	s, taken, err := parseTaking("x.json", data, opts, h)
	if err != nil {
		return fmt.Sprintf("error %T: %v\nnewID calls %q", err, err, calls), taken, err
	}
	var b strings.Builder
	out, err := s.Marshal()
	fmt.Fprintf(&b, "marshal %v\n%s\nwarnings %q\nnewID calls %q\n", err, out, s.Warnings(), calls)
	if len(s.byID) != len(s.living) {
		fmt.Fprintf(&b, "byID holds %d ids for %d living\n", len(s.byID), len(s.living))
	}
	for i, e := range s.living {
		fmt.Fprintf(&b, "living[%d] %s %v\n", i, e.ID, s.byID[e.ID] == e)
	}
	for i, e := range s.graveyard {
		fmt.Fprintf(&b, "dead[%d] %s %v\n", i, e.ID, s.deadIDs[e.ID])
	}
	return b.String(), taken, nil
}

// specCheck compares parses of one document with hints against its
// sequential parse (want).
type specCheck struct {
	t    *testing.T
	data []byte
	opts Options
	want string
}

func newSpecCheck(t *testing.T, data []byte, opts Options) *specCheck {
	t.Helper()
	want, _, _ := parseOutcome(t, data, opts, parseHints{ledgerAt: -1, entryAt: -1, mode: specOff})
	return &specCheck{t: t, data: data, opts: opts, want: want}
}

// same checks a parse with hints h gives what the sequential parse gives,
// and returns what it took from its speculation and its error.
func (c *specCheck) same(h parseHints) (specTaken, error) {
	c.t.Helper()
	got, taken, err := parseOutcome(c.t, c.data, c.opts, h)
	if got != c.want {
		c.t.Fatalf("hints %+v: the parse differs from the sequential one\ngot:\n%.3000s\nwant:\n%.3000s", h, got, c.want)
	}
	return taken, err
}

// sameAsSequential is specCheck.same for one parse.
func sameAsSequential(t *testing.T, data []byte, opts Options, h parseHints) (specTaken, error) {
	t.Helper()
	return newSpecCheck(t, data, opts).same(h)
}

// entryStarts returns the offsets of the items of data's top-level
// "entries" arrays (nil when data does not read that far).
func entryStarts(data []byte) []int {
	var at []int
	p := pyjson.NewDecoder("x", data)
	_ = p.Object(func(key string) error {
		if key != "entries" {
			return p.Skip()
		}
		if k, err := p.Peek(); err != nil || k != pyjson.KindArray {
			return p.Skip()
		}
		return p.Array(func(int) error {
			at = append(at, p.Pos())
			return p.Skip()
		})
	})
	return at
}

// specDoc writes a store as darwin-memo does (indent=2), its entries one a
// line, followed by tail (the members after "entries").
func specDoc(entries []string, tail string) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"config\": {\n    \"max_energy\": 5.0,\n    \"upkeep\": 0.05\n  },\n  \"entries\": [")
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    " + e)
	}
	b.WriteString("\n  ]" + tail + "\n}")
	return []byte(b.String())
}

func specEntries(n int, edit func(i int) string) []string {
	es := make([]string, n)
	for i := range es {
		if edit != nil {
			if e := edit(i); e != "" {
				es[i] = e
				continue
			}
		}
		es[i] = fmt.Sprintf(`{"question": "q%d", "answer": "a%d", "energy": %d.5, "sources": ["s%d"], "id": "id%d"}`, i, i, i%5, i, i)
	}
	return es
}

const specTail = `,
  "graveyard": [
    {"question": "dead q", "answer": "dead a", "id": "dead1"},
    {"question": "dead q2", "answer": "dead a2"}
  ],
  "ledger": {
    "tick_count": 3,
    "pending": [
      {"query": "q", "answer": "a", "deciding_entry": "id1", "supporting_entries": [], "born_tick": 1, "id": "t1"}
    ],
    "history": {
      "id1": [
        {"event": "settle"}
      ]
    }
  }`

// TestSpeculativeEntriesMatchSequential parses documents whose entries are
// taken partly from a speculative parse (forced on small documents, from
// the guess findMarks makes and from every item start given as the guess)
// and checks each gives the sequential parse's store or error.
func TestSpeculativeEntriesMatchSequential(t *testing.T) {
	const n = 40
	withID := func(i int, id string) string {
		return fmt.Sprintf(`{"question": "q%d", "answer": "a%d", "id": %q}`, i, i, id)
	}
	plain := specDoc(specEntries(n, nil), specTail)
	stringy := specEntries(n, func(i int) string {
		if i%7 == 3 { // an item's text inside a string
			return fmt.Sprintf(`{"question": "q%d {\"question\": \"x\", \"answer\": \"y\"}", "answer": "a%d", "id": "id%d"}`, i, i, i)
		}
		return ""
	})
	v, err := pyjson.Parse("x", plain)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		// taken: the guess findMarks makes must take entries
		taken bool
	}{
		{"plain", plain, true},
		{"duplicate id across the split", specDoc(specEntries(n, func(i int) string {
			if i == 35 {
				return withID(i, "id3")
			}
			return ""
		}), specTail), true},
		{"duplicate id after the split", specDoc(specEntries(n, func(i int) string {
			if i == 36 {
				return withID(i, "id30")
			}
			return ""
		}), specTail), true},
		{"unknown key after the split", specDoc(specEntries(n, func(i int) string {
			if i == 30 {
				return `{"question": "q", "answer": "a", "colour": "red"}`
			}
			return ""
		}), specTail), true},
		{"missing answer after the split", specDoc(specEntries(n, func(i int) string {
			if i == 31 {
				return `{"question": "q"}`
			}
			return ""
		}), specTail), true},
		{"bad kind after the split", specDoc(specEntries(n, func(i int) string {
			if i == 32 {
				return `{"question": "q", "answer": "a", "kind": "nope"}`
			}
			return ""
		}), specTail), true},
		{"syntax error after the split", specDoc(specEntries(n, func(i int) string {
			if i == 33 {
				return `{"question": "q", "answer": }`
			}
			return ""
		}), specTail), true},
		{"not an object after the split", specDoc(specEntries(n, func(i int) string {
			if i == 34 {
				return `[1]`
			}
			return ""
		}), specTail), true},
		{"array not closed", bytes.TrimSuffix(specDoc(specEntries(n, nil), ""), []byte("\n  ]\n}")), true},
		{"garbage after the last item", bytes.Replace(specDoc(specEntries(n, nil), specTail), []byte("\n  ],\n  \"graveyard\""), []byte("\n  x,\n  \"graveyard\""), 1), true},
		{"ids derived across the split", specDoc(specEntries(n, func(i int) string {
			if i%6 == 1 {
				return fmt.Sprintf(`{"question": "q%d", "answer": "a%d"}`, i, i)
			}
			return ""
		}), specTail), true},
		{"derived id duplicates one before the split", specDoc(specEntries(n, func(i int) string {
			switch i {
			case 2:
				return withID(i, ContentID("entry", "dq", "da"))
			case 29:
				return `{"question": "dq", "answer": "da"}`
			}
			return ""
		}), specTail), true},
		{"items inside strings", specDoc(stringy, specTail), true},
		{"no graveyard marker", specDoc(specEntries(n, nil), `,
  "ledger": {
    "tick_count": 1
  }`), true},
		{"nothing after the entries", specDoc(specEntries(n, nil), ""), true},
		{"graveyard first", []byte(strings.Replace(string(specDoc(specEntries(n, nil), `,
  "ledger": {}`)), "{\n  \"config\"", "{\n  \"graveyard\": [\n    {\"question\": \"g\", \"answer\": \"h\"}\n  ],\n  \"config\"", 1)), true},
		{"item lines in another array first", []byte(strings.Replace(string(plain), "{\n  \"config\"", "{\n  \"x\": [\n    {\"question\": \"g\", \"answer\": \"h\"},\n    {\"question\": \"g\", \"answer\": \"i\"}\n  ],\n  \"config\"", 1)), true},
		{"entries repeated", []byte(strings.Replace(string(plain), "\n  \"graveyard\"", "\n  \"entries\": [\n    {\"question\": \"r\", \"answer\": \"s\"},\n    {\"question\": \"r\", \"answer\": \"t\"}\n  ],\n  \"graveyard\"", 1)), true},
		{"entries not a list", specDocRaw(`{"a": 1}`), false},
		{"one entry", specDoc(specEntries(1, nil), specTail), false},
		{"compact", pyjson.Compact(v), false},
		{"indented by Python", mustIndent(t, pyjson.Compact(v)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, opts := range []Options{{}, {LazyHistory: true}, {ConsultOnly: true}} {
				check := newSpecCheck(t, c.data, opts)
				found, err := check.same(parseHints{ledgerAt: -1, entryAt: -1, mode: specForce})
				if c.taken && found.entries == 0 {
					t.Errorf("the guess findMarks makes took no entries")
				}
				if err == nil && !found.ledger && bytes.Contains(c.data, []byte("\n  \"ledger\": {")) {
					t.Errorf("the ledger block was not taken from its speculation")
				}
				if opts.LazyHistory || opts.ConsultOnly {
					continue // the guesses below do not meet the ledger's options
				}
				starts := entryStarts(c.data)
				took := 0
				for _, at := range starts {
					taken, _ := check.same(parseHints{ledgerAt: -1, entryAt: at, mode: specForce})
					took += taken.entries
				}
				if len(starts) > 1 && took == 0 {
					t.Errorf("no item start given as the guess took entries")
				}
				// guesses off item starts: inside items and strings, in the
				// graveyard and the ledger, past the end
				for at := 0; at <= len(c.data)+1; at += 13 {
					check.same(parseHints{ledgerAt: noOffset, entryAt: at, mode: specForce})
				}
				if i := bytes.Index(c.data, []byte(`"graveyard": [`)); i >= 0 {
					check.same(parseHints{ledgerAt: -1, entryAt: i + len(`"graveyard": [`) + 5, mode: specForce})
				}
			}
		})
	}
}

func specDocRaw(entries string) []byte {
	return []byte(`{"config": {}, "entries": ` + entries + `, "graveyard": []}`)
}

func mustIndent(t *testing.T, doc []byte) []byte {
	t.Helper()
	out, err := pyjson.Indent("x", doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A canonical large store and the merged document take their second
// halves of the entries, and the ledger, from the speculation on their own
// (specAuto), with the sequential parse's result.
func TestSpeculativeEntriesLargeStores(t *testing.T) {
	data := benchStoreBytes(t, 1000)
	base := benchStoreBytes(t, 1200)
	if len(data) < 1<<20 {
		t.Fatalf("test store is only %d bytes", len(data))
	}
	sameAsSequential(t, data, Options{}, unknownOffsets()) // what it takes depends on timing
	taken, _ := sameAsSequential(t, data, Options{}, parseHints{ledgerAt: -1, entryAt: -1, mode: specForce})
	if taken.entries < 300 || !taken.ledger {
		t.Errorf("canonical store: took %+v from the speculation, want about half the 1000 entries and the ledger", taken)
	}
	doc, at, err := mergeDocs(base, data, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	if at.entryAt < 0 || doc[at.entryAt] != '{' || doc[at.entryAt-1] != ',' {
		t.Fatalf("the middle entry's offset %d does not start an item", at.entryAt)
	}
	taken, _ = sameAsSequential(t, doc, Options{}, at)
	if taken.entries < 300 || !taken.ledger {
		t.Errorf("merged store: took %+v from the speculation, want about half the entries and the ledger", taken)
	}
	for _, h := range []parseHints{
		unknownOffsets(), // a compact document: nothing found
		{ledgerAt: at.ledgerAt, entryAt: at.entryAt + 1}, // a wrong guess
		{ledgerAt: noOffset, entryAt: at.entryAt},
	} {
		sameAsSequential(t, doc, Options{}, h)
	}
}

// The speculative parse matches the sequential one on any document and
// any guess.
func FuzzSpeculativeParse(f *testing.F) {
	fixture, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture, uint32(0), uint32(0))
	f.Add(specDoc(specEntries(12, nil), specTail), uint32(0), uint32(0))
	f.Add(specDoc(specEntries(12, func(i int) string {
		if i == 9 {
			return `{"question": "q1", "answer": "a1", "id": "id1"}`
		}
		return ""
	}), specTail), uint32(0), uint32(0))
	f.Add(specDocRaw(`[{"question": "a", "answer": "b"}, {"question": "a", "answer": "b"}, {"question": "c", "answer": "d", "x": 1}]`), uint32(37), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, entryAt, ledgerAt uint32) {
		h := parseHints{ledgerAt: -1, entryAt: -1, mode: specForce}
		if entryAt > 0 {
			h.entryAt = int(entryAt-1) % (len(data) + 2)
		}
		if ledgerAt > 0 {
			h.ledgerAt = int(ledgerAt-1) % (len(data) + 2)
		}
		sameAsSequential(t, data, Options{}, h)
		for _, at := range entryStarts(data) {
			sameAsSequential(t, data, Options{LazyHistory: entryAt%2 == 0}, parseHints{ledgerAt: h.ledgerAt, entryAt: at, mode: specForce})
		}
	})
}

// mergedSeeds are three sides of a small merge: the bot's side adds and
// edits entries on both sides of the middle, the base branch's pins one.
func mergedSeeds() (base, ours, theirs []byte) {
	base = specDoc(specEntries(30, nil), specTail)
	ours = specDoc(specEntries(34, func(i int) string {
		if i == 25 {
			return `{"question": "q25", "answer": "a25 edited", "id": "id25"}`
		}
		return ""
	}), specTail)
	theirs = specDoc(specEntries(30, func(i int) string {
		if i == 20 {
			return `{"question": "q20", "answer": "a20", "pinned": true, "id": "id20"}`
		}
		return ""
	}), specTail)
	return base, ours, theirs
}

// The merged document's known offsets, forced on a small merge, give the
// sequential parse's store, as do guesses at each of its item starts.
func TestSpeculativeEntriesSmallMerge(t *testing.T) {
	base, ours, theirs := mergedSeeds()
	doc, at, err := mergeDocs(base, ours, theirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := newSpecCheck(t, doc, Options{})
	at.mode = specForce
	taken, err := check.same(at)
	if err != nil || taken.entries == 0 || !taken.ledger {
		t.Fatalf("took %+v (error %v), want entries and the ledger", taken, err)
	}
	for _, s := range entryStarts(doc) {
		check.same(parseHints{ledgerAt: at.ledgerAt, entryAt: s, mode: specForce})
	}
}

// Any merge's document parses with its known offsets, speculation forced,
// as it does sequentially.
func FuzzSpeculativeMerge(f *testing.F) {
	base, ours, theirs := mergedSeeds()
	f.Add(base, ours, theirs)
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		doc, at, err := mergeDocs(base, ours, theirs, nil)
		if err != nil {
			return
		}
		at.mode = specForce
		sameAsSequential(t, doc, Options{}, at)
	})
}
