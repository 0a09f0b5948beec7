package lessons

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/citation"
)

func addCiting(t *testing.T, s *Store, q string, sources ...string) *Entry {
	t.Helper()
	e, err := s.Add(NewLesson{Question: q, Answer: "answer of " + q, Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A merge's renames and removals change the lessons' sources and note it; the store reads
// back the same, and a second load of the written bytes writes them unchanged.
func TestFollowCitations(t *testing.T) {
	s := econStore(t, func(c *Config) {})
	moved := addCiting(t, s, "where is the cache", "pr#1", "path:src/old.go#Evict")
	gone := addCiting(t, s, "how are tokens minted", "path:src/gone.go")
	plain := addCiting(t, s, "which logger", "seed")
	ups := s.FollowCitations(12, []citation.Change{
		{Status: "renamed", Path: "src/new.go", Previous: "src/old.go"},
		{Status: "removed", Path: "src/gone.go"},
	})
	if len(ups) != 2 || ups[0].ID != moved.ID || ups[1].ID != gone.ID || !ups[1].Orphaned {
		t.Fatalf("updates %+v", ups)
	}
	if want := []string{"pr#1", "path:src/new.go#Evict"}; !reflect.DeepEqual(moved.Sources, want) {
		t.Errorf("renamed: %q, want %q", moved.Sources, want)
	}
	if want := []string{"path-removed:src/gone.go"}; !reflect.DeepEqual(gone.Sources, want) {
		t.Errorf("removed: %q, want %q", gone.Sources, want)
	}
	for _, n := range s.History(plain.ID) {
		if n.Event() == CitationNoteEvent {
			t.Error("a lesson without citations got a citations note")
		}
	}
	h := s.History(gone.ID)
	if last := h[len(h)-1]; last.Event() != CitationNoteEvent || !strings.Contains(last.Text(), "#12") || !strings.Contains(last.Text(), "no valid citation left") {
		t.Fatalf("note %s", noteJSON(last))
	}
	if got := s.CitationChanges(gone.ID); len(got) != 1 || got[0].PR != 12 || !got[0].Orphaned || !reflect.DeepEqual(got[0].Removed, []string{"src/gone.go"}) {
		t.Errorf("CitationChanges(gone) = %+v", got)
	}
	if got := s.CitationChanges(moved.ID); len(got) != 1 || got[0].Orphaned || !reflect.DeepEqual(got[0].Renamed, [][2]string{{"path:src/old.go#Evict", "path:src/new.go#Evict"}}) {
		t.Errorf("CitationChanges(moved) = %+v", got)
	}
	out, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	re, err := Parse("x", out)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := re.Entry(gone.ID); !reflect.DeepEqual(e.Sources, gone.Sources) || len(re.Warnings()) != 0 {
		t.Fatalf("reloaded %q, warnings %v", e.Sources, re.Warnings())
	}
	if again, _ := re.Marshal(); string(again) != string(out) {
		t.Error("a second round trip changes the bytes")
	}
}

func TestCitationsStale(t *testing.T) {
	s := econStore(t, func(c *Config) { c.StaleUpkeep = 0.05 })
	gone := addCiting(t, s, "how are tokens minted", "path:src/gone.go")
	half := addCiting(t, s, "how is the cache evicted", "path:src/gone.go", "path:src/app.go")
	none := addCiting(t, s, "which logger", "seed")
	hand := addCiting(t, s, "hand marked", "path-removed:src/x.go")
	s.FollowCitations(3, []citation.Change{{Status: "removed", Path: "src/gone.go"}})
	for _, tt := range []struct {
		e    *Entry
		want bool
	}{{gone, true}, {half, false}, {none, false}, {hand, true}} {
		if got := s.CitationsStale(tt.e); got != tt.want {
			t.Errorf("%s %q: stale %v, want %v", tt.e.Question, tt.e.Sources, got, tt.want)
		}
	}
	// A settlement that credits it ends it; one that debits it does not.
	s.Settle(pend(s, gone.ID), -1, SettleOptions{Source: "ci"})
	if !s.CitationsStale(gone) {
		t.Error("a debit ended staleness")
	}
	s.Settle(pend(s, gone.ID), 2, SettleOptions{Source: "ci"})
	if s.CitationsStale(gone) {
		t.Error("still stale after a credit")
	}
	// A later merge that leaves it without a citation again makes it stale again.
	gone.Sources = append(gone.Sources, "path:src/again.go")
	s.FollowCitations(4, []citation.Change{{Status: "removed", Path: "src/again.go"}})
	if !s.CitationsStale(gone) {
		t.Errorf("not stale after a second removal: %q", gone.Sources)
	}
	// A person re-cites it: an existing file's citation is live.
	gone.Sources = append(gone.Sources, "path:src/new.go")
	if s.CitationsStale(gone) {
		t.Error("stale after re-citing")
	}
}

// A stale lesson pays stale_upkeep per tick instead of its lower idle upkeep; with the key
// absent (darwin-memo's stores) it pays what any lesson pays.
func TestStaleUpkeep(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stale     float64
		wantStale float64
	}{{"off", 0, 1 - 0.015}, {"on", 0.1, 1 - 0.1}, {"lower than idle: idle", 0.01, 1 - 0.015}} {
		t.Run(tt.name, func(t *testing.T) {
			s := econStore(t, func(c *Config) {
				idle := 0.3
				c.IdleUpkeepScale, c.StaleUpkeep = &idle, tt.stale
			})
			gone := addCiting(t, s, "how are tokens minted", "path:src/gone.go")
			kept := addCiting(t, s, "how is the cache evicted", "path:src/app.go")
			s.FollowCitations(3, []citation.Change{{Status: "removed", Path: "src/gone.go"}})
			s.Tick(TickOptions{})
			if !near(gone.Energy, tt.wantStale) || !near(kept.Energy, 1-0.015) {
				t.Errorf("energies stale %v kept %v, want %v and %v", gone.Energy, kept.Energy, tt.wantStale, 1-0.015)
			}
			if got := s.TicksToStarvation(gone); got == nil || math.Abs(*got-math.Round(gone.Energy/max(tt.stale, 0.015)*10)/10) > 1e-9 {
				t.Errorf("ticks to starvation %v", got)
			}
		})
	}
}

func TestStaleUpkeepConfigKey(t *testing.T) {
	s := newTestStore()
	s.SetConfig(DefaultConfig())
	if out, _ := s.Marshal(); strings.Contains(string(out), "stale_upkeep") {
		t.Error("DefaultConfig writes stale_upkeep")
	}
	c := DefaultConfig()
	c.StaleUpkeep = 0.07
	s.SetConfig(c)
	out, _ := s.Marshal()
	re, err := Parse("x", out)
	if err != nil || re.Config().StaleUpkeep != 0.07 || !strings.Contains(string(out), `"stale_upkeep": 0.07`) {
		t.Fatalf("round trip: %v %+v\n%s", err, re.Config(), out)
	}
	bad := `{"config": {"max_energy": 5.0, "upkeep": 0.05}, "entries": [], "graveyard": [], "ledger": {"tick_count": 0, "pending": [], "history": {}, "damaged": [], "config": {"stale_upkeep": "high"}}}`
	bs, err := Parse("x", []byte(bad))
	if err != nil || bs.Config().StaleUpkeep != 0 || len(bs.Warnings()) != 1 {
		t.Fatalf("wrong type: %v %+v %v", err, bs.Config(), bs.Warnings())
	}
	if RecommendedConfig().StaleUpkeep != RecommendedStaleUpkeep || RecommendedStaleUpkeep <= 0 {
		t.Error("new stores do not get stale_upkeep")
	}
}

// import keeps a lesson's citations, as it keeps every source (issue 26: "import keeps them").
func TestImportKeepsCitations(t *testing.T) {
	from := newTestStore()
	e := addCiting(t, from, "where is the cache", "pr#1", "path:src/cache.go#Evict", "path-removed:src/old.go")
	to := newTestStore()
	if ids := to.Import(from, ImportOptions{}); len(ids) != 1 {
		t.Fatalf("imported %v", ids)
	}
	got, _ := to.Entry(e.ID)
	if !reflect.DeepEqual(got.Sources, e.Sources) {
		t.Errorf("imported sources %q, want %q", got.Sources, e.Sources)
	}
}

// Given a lesson whose only cited file a merge removed beside one that still cites a file,
// the rendering marks the first "(cites removed files)" and not the second.
func TestRenderMarksStaleCitations(t *testing.T) {
	s := econStore(t, func(c *Config) {})
	gone := addCiting(t, s, "how are tokens minted", "path:src/gone.go")
	live := addCiting(t, s, "how is the cache evicted", "path:src/app.go")
	s.FollowCitations(3, []citation.Change{{Status: "removed", Path: "src/gone.go"}})
	out, err := s.Render(RenderOptions{Budget: 4000, MaxLines: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		e    *Entry
		want bool
	}{{gone, true}, {live, false}} {
		marked := false
		for _, l := range strings.Split(string(out), "\n") {
			marked = marked || strings.Contains(l, "id "+prefix8(tt.e.ID)) && strings.Contains(l, "cites removed files")
		}
		if marked != tt.want {
			t.Errorf("%s marked %v, want %v:\n%s", tt.e.Question, marked, tt.want, out)
		}
	}
}
