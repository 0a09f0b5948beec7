package lessons

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

// checkMergeEntries merges b, o, th (storedoc.Merge) and fails t unless every id is
// in the merged entries and graveyard once. It returns the merge's error.
func checkMergeEntries(t testing.TB, b, o, th []byte) error {
	t.Helper()
	out, err := storedoc.Merge(b, o, th, nil)
	if err != nil {
		return err
	}
	doc, err := pyjson.Parse("merged", out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range append(doc.Field("entries").Elems(), doc.Field("graveyard").Elems()...) {
		id, ok := e.Get("id")
		if !ok || id.Kind() != pyjson.KindString {
			t.Fatalf("merged entry %s has no string id", pyjson.Compact(e))
		}
		if seen[id.Str()] {
			t.Fatalf("id %q merged twice", id.Str())
		}
		seen[id.Str()] = true
	}
	return nil
}

// parsed reads the JSON b, failing t when it does not read.
func parsed(t testing.TB, b []byte) pyjson.Value {
	t.Helper()
	v, err := pyjson.Parse("x", b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// editEntries rewrites a store document's entries and graveyard with edit, which gets and
// returns them as lists of entries' bytes; the other members stay as they are.
func editEntries(t testing.TB, doc []byte, edit func(living, dead [][]byte) ([][]byte, [][]byte)) []byte {
	t.Helper()
	v := parsed(t, doc)
	list := func(key string) [][]byte {
		var out [][]byte
		for _, e := range v.Field(key).Elems() {
			out = append(out, pyjson.Compact(e))
		}
		return out
	}
	values := func(l [][]byte) pyjson.Value {
		vs := make([]pyjson.Value, len(l))
		for i, e := range l {
			vs[i] = parsed(t, e)
		}
		return pyjson.Array(vs...)
	}
	living, dead := edit(list("entries"), list("graveyard"))
	v.Set("entries", values(living))
	v.Set("graveyard", values(dead))
	return pyjson.Compact(v)
}

// withField returns the entry e with key set to the JSON val (nil: removed).
func withField(t testing.TB, e []byte, key string, val []byte) []byte {
	t.Helper()
	v := parsed(t, e)
	if val != nil {
		v.Set(key, parsed(t, val))
		return pyjson.Compact(v)
	}
	var kept []pyjson.Member
	for _, m := range v.Members() {
		if m.Key != key {
			kept = append(kept, m)
		}
	}
	return pyjson.Compact(pyjson.Object(kept...))
}

// pick returns k distinct indexes below n.
func pick(r *rand.Rand, n, k int) []int {
	return r.Perm(n)[:min(k, n)]
}

// The merge of entries (storedoc.Merge) on the edits bot and people make, and the errors it gives.
func TestMergeEntryLists(t *testing.T) {
	exhaustive.Only(t)
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
		{name: "ids with an escape, keys not ASCII", base: base,
			ours: editEntries(t, bot, func(l, d [][]byte) ([][]byte, [][]byte) {
				for i := 0; i < len(l); i += 50 {
					id := parsed(t, l[i]).Field("id").Str()
					// the same id with an escape, and a key not ASCII
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
			err := checkMergeEntries(t, c.base, c.ours, c.theirs)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

// fixedClock is the options the merge's tests and benchmarks load stores with: a fixed clock,
// so the documents they edit are the same on every run.
func fixedClock() Options {
	return Options{Now: func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }}
}

// editedDoc returns doc loaded with fixedClock, changed by edit and written again: one side of
// a merge.
func editedDoc(tb testing.TB, doc []byte, edit func(*Store)) []byte {
	tb.Helper()
	s, err := ParseWith("x", doc, fixedClock())
	if err != nil {
		tb.Fatal(err)
	}
	edit(s)
	out, err := s.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
