package lessons

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

// The entries step of the merge gives the same lists, byte for byte, and the same errors in
// the same order, whether it runs on one goroutine or spread over several (mergeEntriesWith),
// and the same as it did before it was spread (refMergeEntries).

// entryWorks are the spreads the tests compare with the serial path: chunks of one id and of
// a few, more workers than cores, and the default chunk.
var entryWorks = []entryWork{{2, 1}, {3, 7}, {4, 100}, {2, 4096}}

// checkMergeEntriesAgree fails t unless every path merges the entries of b, o, th alike. It
// returns the serial path's error.
func checkMergeEntriesAgree(t testing.TB, b, o, th *rawObj) error {
	t.Helper()
	wl, wd, werr := refMergeEntries(b, o, th)
	type run struct {
		name string
		fn   func() ([][]byte, [][]byte, error)
	}
	runs := []run{
		{"serial", func() ([][]byte, [][]byte, error) { return mergeEntriesWith(b, o, th, entryWork{1, 4096}) }},
		{"mergeEntries", func() ([][]byte, [][]byte, error) { return mergeEntries(b, o, th) }},
	}
	for _, w := range entryWorks {
		runs = append(runs, run{fmt.Sprint(w), func() ([][]byte, [][]byte, error) { return mergeEntriesWith(b, o, th, w) }})
	}
	for _, r := range runs {
		gl, gd, gerr := r.fn()
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%s: error %v, want %v", r.name, gerr, werr)
		}
		if !bytes.Equal(rawList(gl), rawList(wl)) || !bytes.Equal(rawList(gd), rawList(wd)) || len(gl) != len(wl) || len(gd) != len(wd) {
			t.Fatalf("%s: %d living, %d dead, want %d, %d (or the same counts with other bytes)", r.name, len(gl), len(gd), len(wl), len(wd))
		}
	}
	return werr
}

// editEntries rewrites a store document's entries and graveyard with edit, which gets and
// returns them as lists of entries' bytes; the other members stay as they are.
func editEntries(t testing.TB, doc []byte, edit func(living, dead [][]byte) ([][]byte, [][]byte)) []byte {
	t.Helper()
	o, err := rawObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	living, err := rawArray(o.vals["entries"])
	if err != nil {
		t.Fatal(err)
	}
	dead, err := rawArray(o.vals["graveyard"])
	if err != nil {
		t.Fatal(err)
	}
	living, dead = edit(living, dead)
	o.set("entries", rawList(living))
	o.set("graveyard", rawList(dead))
	return o.bytes()
}

// withField returns the entry e with key set to the JSON val (nil: removed).
func withField(t testing.TB, e []byte, key string, val []byte) []byte {
	t.Helper()
	o, err := rawObject(e)
	if err != nil {
		t.Fatal(err)
	}
	out := newRawObj()
	for _, k := range o.keys {
		if k != key {
			out.set(k, o.vals[k])
		} else if val != nil {
			out.set(k, val)
		}
	}
	if _, had := o.vals[key]; !had && val != nil {
		out.set(key, val)
	}
	return out.bytes()
}

// pick returns k distinct indexes below n.
func pick(r *rand.Rand, n, k int) []int {
	return r.Perm(n)[:min(k, n)]
}

func TestMergeEntriesParallelMatchesSerial(t *testing.T) {
	base := benchStoreBytes(t, 2000)
	r := rand.New(rand.NewPCG(11, 12))
	viaStore := func(doc []byte, edit func(*Store)) []byte { return editedDoc(t, doc, edit) }
	// The bot settled a ticket, ticked (every living energy changed, some lessons died) and
	// learnt lessons; people pinned and forgot lessons.
	bot := viaStore(base, func(s *Store) {
		if p := s.Pending(); len(p) > 0 {
			s.Settle(p[0].ID, 1, SettleOptions{Source: "ci"})
		}
		s.Tick(TickOptions{})
		for i := range 30 {
			if _, err := s.Add(NewLesson{Question: fmt.Sprintf("new question %d?", i), Answer: "new answer"}); err != nil {
				t.Fatal(err)
			}
		}
	})
	people := viaStore(base, func(s *Store) {
		for _, i := range pick(r, len(s.Living()), 40) {
			s.Pin(s.Living()[i].ID)
		}
		for range 25 {
			s.Forget(s.Living()[r.IntN(len(s.Living()))].ID)
		}
	})
	text := func(s string) []byte { return pyjson.AppendString(nil, s) }
	cases := []struct {
		name               string
		base, ours, theirs []byte
		wantErr            string // a part of the error, "" for none
	}{
		{name: "bot and people", base: base, ours: bot, theirs: people},
		{name: "unchanged", base: base, ours: base, theirs: base},
		{name: "no base", ours: bot, theirs: people},
		{name: "theirs empty", base: base, ours: bot, theirs: []byte(`{"entries":[],"graveyard":[]}`)},
		{name: "hand edits on both sides", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				for _, i := range pick(r, len(l), 300) {
					l[i] = withField(t, l[i], "uses", []byte("77"))
				}
				return l, d
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				for _, i := range pick(r, len(l), 300) {
					l[i] = withField(t, l[i], "answer", text(fmt.Sprint("edited by hand ", i)))
				}
				for _, i := range pick(r, len(d), 50) {
					d[i] = withField(t, d[i], "note", text("dead, edited"))
				}
				return l, d
			})},
		{name: "deletions", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				return append(l[:100:100], l[160:]...), d[:len(d)-20]
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				for _, i := range pick(r, len(l), 50) {
					l[i] = nil
				}
				var kept [][]byte
				for _, e := range l {
					if e != nil {
						kept = append(kept, e)
					}
				}
				return kept, append(d[:10:10], d[30:]...)
			})},
		{name: "moved between entries and graveyard", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				// resurrected lessons, and lessons buried by the bot
				return append(append([][]byte{}, d[:40]...), l[40:]...), append(append([][]byte{}, l[:40]...), d[40:]...)
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				n := len(l)
				return append(append([][]byte{}, l[:n-60]...), d[len(d)-10:]...), append(append([][]byte{}, d[:len(d)-10]...), l[n-60:]...)
			})},
		{name: "entries without ids", base: editEntries(t, base, func(l, d [][]byte) ([][]byte, [][]byte) {
			for i := 0; i < len(l); i += 17 {
				l[i] = withField(t, l[i], "id", nil)
			}
			return l, d
		}),
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				for i := 0; i < len(l); i += 17 {
					l[i] = withField(t, l[i], "id", nil)
				}
				for i := 0; i < len(d); i += 5 {
					d[i] = withField(t, d[i], "id", nil)
				}
				return l, d
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				for i := 0; i < len(l); i += 34 {
					l[i] = withField(t, withField(t, l[i], "id", nil), "pinned", []byte("true"))
				}
				return l, d
			})},
		{name: "duplicates across entries and graveyard", base: editEntries(t, base, func(l, d [][]byte) ([][]byte, [][]byte) {
			return l, append(d, l[:5]...)
		}),
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				// a graveyard copy of living ids, and a living id twice
				for _, i := range pick(r, len(l), 20) {
					d = append(d, withField(t, l[i], "energy", []byte("0.0")))
				}
				return append(l, l[7], l[900]), d
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				for _, i := range pick(r, len(d), 20) {
					l = append(l, withField(t, d[i], "energy", []byte("1.5")))
				}
				return l, append(d, d[3], l[2])
			})},
		{name: "reordered", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				rl := make([][]byte, len(l))
				for i, e := range l {
					rl[len(l)-1-i] = e
				}
				return rl, d
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				r.Shuffle(len(l)/3, func(i, j int) { l[i], l[j] = l[j], l[i] })
				return l, d
			})},
		{name: "ids the fast paths do not read", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				for i := 0; i < len(l); i += 50 {
					id, _, err := entryID(pyjson.NewDecoder("x", l[i]))
					if err != nil {
						t.Fatal(err)
					}
					// the same id with an escape, and a key the quick path gives up on
					esc := `"\u00` + fmt.Sprintf("%02x", id[0]) + id[1:] + `"`
					l[i] = withField(t, withField(t, l[i], "id", []byte(esc)), "cl\u00e9", []byte("1"))
				}
				return l, d
			}),
			theirs: people},
		{name: "malformed entry in ours", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				l[1234] = []byte(`{"id":5}`)
				return l, d
			}),
			theirs: people, wantErr: `bot branch store: entries[1234]: has no string id`},
		{name: "malformed entries on every side", base: editEntries(t, base, func(l, d [][]byte) ([][]byte, [][]byte) {
			return l, append(d, []byte(`{"question":"q"}`))
		}),
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				l[3] = []byte(`[1]`)
				return l, d
			}),
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				return l, append(d, []byte(`7`))
			}),
			wantErr: `merge base store: graveyard[500]: has no string id, and no question and answer`},
		{name: "malformed in theirs only", base: base, ours: bot,
			theirs: editEntries(t, people, func(l, d [][]byte) ([][]byte, [][]byte) {
				return l, append(d, []byte(`7`))
			}),
			wantErr: `base branch store: graveyard[`},
		{name: "entries not a list", base: base, ours: bot,
			theirs:  []byte(strings.Replace(string(people), `"entries"`, `"entries":3,"x"`, 1)),
			wantErr: `base branch store: entries is not a list`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, o, th, err := storeObjects(orEmptyJSON(c.base), c.ours, c.theirs)
			if err != nil {
				t.Fatal(err)
			}
			err = checkMergeEntriesAgree(t, b, o, th)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

// FuzzMergeEntriesParallel checks the spread entries step against the serial one and against
// the one before the spread, on any three documents the top-level pass reads.
func FuzzMergeEntriesParallel(f *testing.F) {
	f.Add([]byte(`{}`), []byte(`{"entries":[{"id":"a","x":1},{"id":"b"}],"graveyard":[{"id":"a"}]}`), []byte(`{"entries":[{"id":"b","y":2},{"id":"c"}]}`))
	f.Add([]byte(`{"entries":[{"id":"a","e":1},{"question":"q","answer":"a"}]}`), []byte(`{"entries":[{"id":"a","e":2},{"question":"q","answer":"a","e":3}]}`), []byte(`{"graveyard":[{"id":"a","e":1}],"entries":[{"question":"q","answer":"a","p":true}]}`))
	f.Add([]byte(`{"entries":[{"id":"a"}]}`), []byte(`{"entries":[{"id":5}]}`), []byte(`{"entries":[7]}`))
	f.Add([]byte(`{"entries":[{"id":"a"},{"id":"b"},{"id":"c"}]}`), []byte(`{"entries":[{"id":"c"},{"id":"b"},{"id":"a"},{"id":"a","z":0}]}`), []byte(`{"entries":[{"id":"b"}],"graveyard":[{"id":"c"},{"id":"\u0061"}]}`))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		b, o, th, err := storeObjects(orEmptyJSON(base), ours, theirs)
		if err != nil {
			return
		}
		checkMergeEntriesAgree(t, b, o, th)
	})
}

// refEntryIndex is entryIndex as it was before the merge used more than one core.
func refEntryIndex(doc *rawObj) (map[string]entryState, []string, []string, error) {
	hint := 0
	for _, l := range doc.sections {
		hint += len(l.ids)
	}
	idx := make(map[string]entryState, hint)
	var livingOrder, deadOrder []string
	for _, sec := range []struct {
		key   string
		place entryPlace
		order *[]string
	}{{"entries", placeLiving, &livingOrder}, {"graveyard", placeDead, &deadOrder}} {
		raw := doc.vals[sec.key]
		if raw == nil {
			continue
		}
		if l := doc.sections[sec.key]; l != nil {
			for i, id := range l.ids {
				if _, seen := idx[id]; !seen {
					*sec.order = append(*sec.order, id)
				}
				idx[id] = entryState{place: sec.place, raw: l.raws[i]}
			}
			continue
		}
		p := pyjson.NewDecoder(sec.key, raw)
		if k, err := p.Peek(); err != nil || k != pyjson.KindArray {
			return nil, nil, nil, fmt.Errorf("%s is not a list", sec.key)
		}
		err := p.Array(func(i int) error {
			start := p.Pos()
			id, r, err := entryID(p)
			if err != nil {
				return fmt.Errorf("%s[%d]: %w", sec.key, i, err)
			}
			if r == nil {
				r = raw[start:p.Pos()]
			}
			// A later duplicate (a graveyard copy of a living id) overrides; darwin-memo keeps
			// ids unique across both lists.
			if _, seen := idx[id]; !seen {
				*sec.order = append(*sec.order, id)
			}
			idx[id] = entryState{place: sec.place, raw: r}
			return nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return idx, livingOrder, deadOrder, nil
}

// refMergeEntries is mergeEntries as it was before it used more than one core (540415d): the
// reference the serial and the parallel paths must both give, byte for byte.
func refMergeEntries(b, o, t *rawObj) ([][]byte, [][]byte, error) {
	bi, _, _, err := refEntryIndex(b)
	if err != nil {
		return nil, nil, fmt.Errorf("merge base store: %w", err)
	}
	oi, oLiving, oDead, err := refEntryIndex(o)
	if err != nil {
		return nil, nil, fmt.Errorf("bot branch store: %w", err)
	}
	ti, tLiving, tDead, err := refEntryIndex(t)
	if err != nil {
		return nil, nil, fmt.Errorf("base branch store: %w", err)
	}
	// Each id is merged once, in the order of its first appearance; the lists are then walked
	// as indexes into the results (no map lookups per pass).
	lists := [][]string{oLiving, oDead, tLiving, tDead}
	n := len(oLiving) + len(oDead) + len(tLiving) + len(tDead)
	pos := make(map[string]int, len(oLiving)+len(oDead))
	union := make([]string, 0, len(oLiving)+len(oDead))
	at := make([][]int, len(lists))
	for l, ids := range lists {
		at[l] = make([]int, len(ids))
		for i, id := range ids {
			j, ok := pos[id]
			if !ok {
				j = len(union)
				pos[id] = j
				union = append(union, id)
			}
			at[l][i] = j
		}
	}
	result := make([]entryState, len(union))
	for j, id := range union {
		result[j] = mergeEntry(bi[id], oi[id], ti[id])
	}
	livingOut, deadOut := make([][]byte, 0, n/2), make([][]byte, 0, len(oDead)+len(tDead))
	emitted := make([]bool, len(union))
	emit := func(order []int, want entryPlace, out *[][]byte) {
		for _, j := range order {
			if r := result[j]; r.place == want && !emitted[j] {
				emitted[j] = true
				*out = append(*out, r.raw)
			}
		}
	}
	oL, oD, tL, tD := at[0], at[1], at[2], at[3]
	emit(oL, placeLiving, &livingOut)
	emit(tL, placeLiving, &livingOut)
	emit(oD, placeDead, &deadOut)
	emit(tD, placeDead, &deadOut)
	// Entries that changed place (a living entry of ours that people buried) come last.
	emit(oL, placeDead, &deadOut)
	emit(tL, placeDead, &deadOut)
	emit(oD, placeLiving, &livingOut)
	emit(tD, placeLiving, &livingOut)
	return livingOut, deadOut, nil
}
