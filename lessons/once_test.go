package lessons

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/exhaustive"
	"github.com/darwin-memo/darwin-memo-action/internal/rank/textgen"
)

// decisionKey renders everything a decide returns, scores as bits, so two
// decisions compare equal only when they are identical.
func decisionKey(d *Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "silent=%v provisional=%v answer=%q decider=%s supporting=%v withheld=%v tick=%d retrieval=%s\n",
		d.Silent, d.Provisional, d.Answer, d.Decider, d.Supporting, d.Withheld, d.Tick, d.Retrieval)
	if d.Ticket != nil {
		fmt.Fprintf(&b, "ticket=%s free=%s\n", d.Ticket.ID, d.StoreFreeLine())
	}
	for _, h := range d.Hits {
		fmt.Fprintf(&b, "%s %x %x %x\n", h.Entry.ID, math.Float64bits(h.Score), math.Float64bits(h.Coverage), math.Float64bits(h.Confidence))
	}
	return b.String()
}

// onceQueries are queries about a store's lessons: parts of questions and
// answers, mixtures of two lessons, text no lesson holds, capitals and
// numbers, and a query longer than a rank.Matcher takes.
func onceQueries(s *Store, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	qs := []string{decideQuery, "", "the of and", "Falcon 4521 v3 retry", "?!"}
	words := func(e *Entry, max int) string {
		w := strings.Fields(e.Question + " " + e.Answer)
		i := r.IntN(len(w))
		return strings.Join(w[i:min(len(w), i+1+r.IntN(max))], " ")
	}
	for range exhaustive.Or(4, 10) {
		a, b := s.living[r.IntN(len(s.living))], s.living[r.IntN(len(s.living))]
		qs = append(qs, a.Question, words(a, 6), words(a, 3)+" "+words(b, 3), strings.ToUpper(words(b, 4)))
	}
	for _, l := range textgen.Lessons(seed+1, exhaustive.Or(4, 10)) {
		qs = append(qs, l.Question)
	}
	var long []string
	for i := range 80 {
		long = append(long, fmt.Sprintf("word%d", i))
	}
	return append(qs, strings.Join(long, " ")+" "+s.living[0].Question)
}

// A query asked with Once (no index built) decides exactly as with the
// store's index: same hits, scores, answer and ticket, for both rankings,
// with and without filters, decay and other hit counts.
func TestOnceMatchesIndex(t *testing.T) {
	seeds := exhaustive.Or([]uint64{1}, []uint64{1, 2})
	for _, seed := range seeds {
		data, err := genStore(exhaustive.Or(250, 300+int(seed)*300), seed).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		indexed, err := Parse("indexed", data)
		if err != nil {
			t.Fatal(err)
		}
		e := indexed.living[len(indexed.living)/2]
		optss := []RetrieveOptions{
			{}, {K: 1}, {K: 9}, {Kind: e.Kind}, {Source: e.Sources[0]}, {Kind: "entity"},
		}
		once, err := Parse("once", data)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Retrieval{RetrievalDarwinMemo, RetrievalBM25F} {
			for _, q := range onceQueries(indexed, seed) {
				for _, o := range optss {
					o.Retrieval = r
					o.Once = true
					got, err := once.Decide(q, DecideOptions{RetrieveOptions: o})
					if err != nil {
						t.Fatal(err)
					}
					o.Once = false
					want, err := indexed.Decide(q, DecideOptions{RetrieveOptions: o})
					if err != nil {
						t.Fatal(err)
					}
					if g, w := decisionKey(got), decisionKey(want); g != w {
						t.Fatalf("seed %d %s %q %+v:\nonce:\n%s\nindexed:\n%s", seed, r, q, o, g, w)
					}
					if once.lib != nil && (once.lib.Indexed(RetrievalDarwinMemo) || once.lib.Indexed(RetrievalBM25F)) {
						t.Fatalf("%s %q %+v: Once built the store's index", r, q, o)
					}
				}
			}
		}
	}
}

// The same on the retrieval suite's scenario packs, in every mode.
func TestOnceMatchesIndexOnSuite(t *testing.T) {
	common, packs := loadPacks(t)
	var all []evalLesson
	for _, p := range packs {
		all = append(all, p.Lessons...)
	}
	for _, mode := range evalModes {
		for _, p := range packs {
			ls := append(append([]evalLesson{}, common.Lessons...), p.Lessons...)
			if p.IncludeAll {
				ls = append(append([]evalLesson{}, common.Lessons...), all...)
			}
			indexed, _ := buildEvalStore(t, mode.build, ls, mode.statements, mode.whole)
			once, _ := buildEvalStore(t, mode.build, ls, mode.statements, mode.whole)
			once.lib = nil // built by Add (supersession records); Once must not need it
			for _, pr := range p.Probes {
				o := RetrieveOptions{Retrieval: mode.query}
				want, err := indexed.Decide(pr.Query, DecideOptions{RetrieveOptions: o})
				if err != nil {
					t.Fatal(err)
				}
				o.Once = true
				got, err := once.Decide(pr.Query, DecideOptions{RetrieveOptions: o})
				if err != nil {
					t.Fatal(err)
				}
				if g, w := decisionKey(got), decisionKey(want); g != w {
					t.Fatalf("%s, %s, %q:\nonce:\n%s\nindexed:\n%s", mode.name, p.Class, pr.Query, g, w)
				}
				if once.lib != nil && (once.lib.Indexed(RetrievalDarwinMemo) || once.lib.Indexed(RetrievalBM25F)) {
					t.Fatalf("%s, %q: Once built the store's index", mode.name, pr.Query)
				}
			}
		}
	}
}

// A store loaded to be consulted only has its entries and ledger, its
// history notes rendered when read, but no graveyard; it decides alike,
// refuses to be written, and still rejects a malformed history or graveyard.
func TestConsultOnly(t *testing.T) {
	data := benchStoreBytes(t, 1000)
	full, err := Parse("full", data)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := ParseWith("lean", data, Options{ConsultOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	withNotes := 0
	for i, e := range full.living {
		if lean.living[i].ID != e.ID || lean.living[i].Energy != e.Energy {
			t.Fatalf("entry %d differs", i)
		}
		if len(full.History(e.ID)) > 0 {
			withNotes++
		}
		if got, want := lean.History(e.ID), full.History(e.ID); !reflect.DeepEqual(got, want) {
			t.Fatalf("entry %s: a store loaded to consult renders its notes as %v, a full load as %v", e.ID, got, want)
		}
	}
	if withNotes == 0 {
		t.Fatal("the test store has no history")
	}
	if full.TickCount() != lean.TickCount() || len(full.Pending()) != len(lean.Pending()) {
		t.Fatal("ledger differs")
	}
	if len(full.graveyard) == 0 || len(lean.graveyard) != 0 {
		t.Fatalf("graveyard: %d entries, %d kept when consulting", len(full.graveyard), len(lean.graveyard))
	}
	for _, q := range onceQueries(full, 4)[:8] {
		for _, r := range []Retrieval{RetrievalDarwinMemo, RetrievalBM25F} {
			o := DecideOptions{RetrieveOptions: RetrieveOptions{Retrieval: r, Once: true}}
			a, _ := full.Decide(q, o)
			b, _ := lean.Decide(q, o)
			if decisionKey(a) != decisionKey(b) {
				t.Fatalf("%s %q: decisions differ", r, q)
			}
		}
	}
	if _, err := lean.Marshal(); err == nil {
		t.Error("Marshal wrote a store loaded to consult")
	}
	if _, err := lean.WriteTo(io.Discard); err == nil {
		t.Error("WriteTo wrote a store loaded to consult")
	}
	bad := bytes.Replace(data, []byte(`"tick `), []byte(`"\x01tick `), 1)
	if bytes.Equal(bad, data) {
		t.Fatal("no history note to damage")
	}
	if _, err := ParseWith("bad", bad, Options{ConsultOnly: true}); err == nil {
		t.Error("a malformed history note was accepted")
	}
	// A control character in the first dead entry's id.
	g := bytes.Index(data, []byte(`"graveyard": [`))
	dead := []byte(`"` + full.graveyard[0].ID + `"`)
	i := bytes.Index(data[g:], dead)
	if g < 0 || i < 0 {
		t.Fatal("no graveyard entry to damage")
	}
	bad = slices.Concat(data[:g+i+1], []byte("\x01"), data[g+i+1:])
	if _, err := ParseWith("bad", bad, Options{ConsultOnly: true}); err == nil {
		t.Error("a malformed graveyard was accepted")
	}
}

// Verifying a ticket with VerifyOptions.Once gives the verdict the index
// gives, for tickets that pass and for tickets whose decider and supporter
// were swapped or whose named lesson the query does not retrieve.
func TestVerifyOnceMatchesIndex(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []Retrieval{RetrievalDarwinMemo, RetrievalBM25F} {
		s := New("verify.json", Options{Now: func() time.Time { return base }, Retrieval: r})
		ls := textgen.Lessons(7, exhaustive.Or(140, 300))
		for i, l := range ls {
			if _, err := s.Add(NewLesson{Question: l.Question, Answer: l.Answer, RecordedTS: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05+00:00")}); err != nil {
				t.Fatal(err)
			}
		}
		data, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var tickets []FreeTicket
		for i := 0; i < len(ls) && len(tickets) < exhaustive.Or(16, 40); i += 7 {
			d, err := s.Decide(ls[i].Question, DecideOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Ticket == nil {
				continue
			}
			ft := d.FreeTicket()
			tickets = append(tickets, ft)
			if len(ft.Supporting) > 0 {
				swapped := ft
				swapped.Supporting = slices.Clone(ft.Supporting)
				swapped.Decider, swapped.Supporting[0] = ft.Supporting[0], ft.Decider
				tickets = append(tickets, swapped)
			}
			stray := ft
			stray.Supporting = append(slices.Clone(ft.Supporting), s.Living()[(i*13)%len(s.Living())].ID)
			tickets = append(tickets, stray)
		}
		passed, refused := 0, 0
		for _, ft := range tickets {
			bt := BodyTicket{Form: FormStoreFree, ID: ft.ID(), Free: ft}
			indexed, err := Parse("indexed", data)
			if err != nil {
				t.Fatal(err)
			}
			once, err := ParseWith("once", data, Options{ConsultOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			want, got := fmt.Sprint(indexed.VerifyTicket(bt, VerifyOptions{})), fmt.Sprint(once.VerifyTicket(bt, VerifyOptions{Once: true}))
			if got != want {
				t.Fatalf("%s: ticket %s: once %s, index %s", r, ft.Line(), got, want)
			}
			if want == "<nil>" {
				passed++
			} else {
				refused++
			}
		}
		if passed == 0 || refused == 0 {
			t.Fatalf("%s: %d passed and %d refused; the test needs both", r, passed, refused)
		}
	}
}
