package lessons

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCase37RenderBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []Kind{KindExplicit, KindInferred, KindConsolidated, KindExperience}
	for iter := 0; iter < 300; iter++ {
		s := newTestStore()
		n := r.IntN(40)
		for i := 0; i < n; i++ {
			ans := strings.Repeat(fmt.Sprintf("word%d ünï  \t", r.IntN(50)), 1+r.IntN(30))
			e, _ := s.Add(NewLesson{Question: fmt.Sprintf("q%d", i), Answer: ans, Kind: kinds[r.IntN(len(kinds))]})
			e.Energy = float64(r.IntN(60)) / 10
		}
		budget := 1 + r.IntN(4000)
		lines := 1 + r.IntN(60)
		out, err := s.Render(RenderOptions{Budget: budget, MaxLines: lines})
		if errors.Is(err, ErrBudgetTooSmall) && budget < len(renderHeader(0, n, budget, lines))+1 {
			continue // deliberate difference: no document cut inside its header comment
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > budget || bytes.Count(out, []byte("\n")) > lines {
			t.Fatalf("budget %d lines %d: got %d bytes %d lines", budget, lines, len(out), bytes.Count(out, []byte("\n")))
		}
		again, _ := s.Render(RenderOptions{Budget: budget, MaxLines: lines})
		if !bytes.Equal(out, again) {
			t.Fatal("render not deterministic")
		}
	}
}

func TestRenderOrderAndFormat(t *testing.T) {
	s := newTestStore()
	add := func(q, a string, k Kind, energy float64) *Entry {
		e, _ := s.Add(NewLesson{Question: q, Answer: a, Kind: k})
		e.Energy = energy
		return e
	}
	add("q1", "explicit low", KindExplicit, 1)
	b := add("q2", "consolidated  top\n answer", KindConsolidated, 4)
	add("q3", "explicit high", KindExplicit, 3)
	b.LastUsedCycle = 7
	out, _ := s.Render(RenderOptions{})
	want := "<!-- rendered by darwin-memo from lessons.json: 3 of 3 living entries shown, budget 25600 bytes, 200 lines -->\n" +
		"\n## consolidated\n\n" +
		"- consolidated top answer\n  (id " + b.ID[:8] + ", balance 4.000, last settle t7)\n" +
		"\n## explicit\n\n" +
		"- explicit high\n  (id " + s.living[2].ID[:8] + ", balance 3.000, last settle never)\n" +
		"- explicit low\n  (id " + s.living[0].ID[:8] + ", balance 1.000, last settle never)\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// an item too big is skipped, smaller later ones still fit
	big := add("q4", strings.Repeat("x", 500), KindExplicit, 5)
	out, _ = s.Render(RenderOptions{Budget: 400})
	if bytes.Contains(out, []byte(big.ID[:8])) || !bytes.Contains(out, []byte(b.ID[:8])) {
		t.Errorf("greedy packing:\n%s", out)
	}
}

func TestCase38RenderMissingOrEmpty(t *testing.T) {
	if got := string(RenderMissing("x/lessons.json")); !strings.Contains(got, "store not found") {
		t.Error(got)
	}
	out, _ := newTestStore().Render(RenderOptions{})
	if !strings.Contains(string(out), "(no living entries") {
		t.Errorf("%s", out)
	}
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]int{"25kb": 25600, "25KB": 25600, "100": 100, "1m": 1 << 20, "2k": 2048, "10b": 10} {
		if got, err := ParseBudget(in); err != nil || got != want {
			t.Errorf("%s = %d %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "-1kb", "lots", ""} {
		if _, err := ParseBudget(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestRenderNeutralisesComments(t *testing.T) {
	s := newTestStore()
	mustAdd(t, s, "q", "ignore the rest <!-- hidden\x07 instructions --> done")
	out, _ := s.Render(RenderOptions{})
	if bytes.Count(out, []byte("<!--")) != 1 || bytes.Count(out, []byte("-->")) != 1 || bytes.ContainsRune(out, 7) {
		t.Errorf("lesson text opened or closed an HTML comment:\n%s", out)
	}
}

// renderHeader is Render's header line for a store named lessons.json.
func renderHeader(shown, n, budget, lines int) string {
	return fmt.Sprintf("<!-- rendered by darwin-memo from lessons.json: %d of %d living entries shown, budget %d bytes, %d lines -->", shown, n, budget, lines)
}

// Regression (issue 10 §2): budgets around the header's size panicked
// (index out of range) or cut the header inside its "<!--".
func TestRenderBudgetAroundHeader(t *testing.T) {
	s := newTestStore()
	mustAdd(t, s, "q", "a lesson")
	for budget := 1; budget <= 400; budget++ {
		out, err := s.Render(RenderOptions{Budget: budget, MaxLines: 200})
		if err != nil {
			if !errors.Is(err, ErrBudgetTooSmall) {
				t.Fatalf("budget %d: %v", budget, err)
			}
			continue
		}
		checkRendered(t, out, budget, 200)
	}
}

// checkRendered asserts the limits and that every comment is closed.
func checkRendered(t *testing.T, out []byte, budget, lines int) {
	t.Helper()
	if len(out) > budget || bytes.Count(out, []byte("\n")) > lines {
		t.Fatalf("budget %d lines %d: got %d bytes %d lines", budget, lines, len(out), bytes.Count(out, []byte("\n")))
	}
	if o, c := bytes.Count(out, []byte("<!--")), bytes.Count(out, []byte("-->")); o != c || !bytes.HasPrefix(out, []byte("<!--")) {
		t.Fatalf("budget %d: %d comment openers, %d closers:\n%s", budget, o, c, out)
	}
}

// "<!-->" holds both delimiters overlapping: one pass of the breaker turns it into "<! -->",
// which still closes a comment, so a store named "<!-->.json" ended the header comment early.
func TestRenderBreaksOverlappingCommentDelimiters(t *testing.T) {
	for _, questions := range []bool{false, true} {
		s := newTestStore()
		if _, err := s.Add(NewLesson{Question: "q <!--> <!--->", Answer: "a <!-->b<!---->"}); err != nil {
			t.Fatal(err)
		}
		out, err := s.Render(RenderOptions{Questions: questions, Label: "x<!-->.json"})
		if err != nil {
			t.Fatal(err)
		}
		checkRendered(t, out, DefaultRenderBudget, 200)
		if !bytes.HasSuffix(bytes.SplitN(out, []byte("\n"), 2)[0], []byte("200 lines -->")) {
			t.Errorf("the header comment closes before its end:\n%s", out)
		}
	}
}

func FuzzRender(f *testing.F) {
	f.Add(105, 200, "No. Sampled model output is not deterministic", "lessons.json", false)
	f.Add(1, 1, "<!-- hide -->", "x-->.json", true)
	f.Add(4000, 3, "ünï\u0000 \t", "", true)
	f.Add(420, 7, "run make itest", "lessons.json", true)
	f.Add(4000, 50, "a <!--> b", "x<!-->.json", false)
	f.Fuzz(func(t *testing.T, budget, lines int, answer, label string, questions bool) {
		s := newTestStore()
		for i := 0; i < 3; i++ {
			e, err := s.Add(NewLesson{Question: fmt.Sprintf("q%d %s", i, answer), Answer: answer + strings.Repeat(" more", i)})
			if err != nil {
				return // empty answers are refused by Add
			}
			e.Energy = float64(i + 1)
		}
		out, err := s.Render(RenderOptions{Budget: budget, MaxLines: lines, Label: label, Questions: questions})
		if err != nil {
			return // budget <= 0, lines < 0, or a budget below the header
		}
		if budget == 0 {
			budget = DefaultRenderBudget
		}
		if lines == 0 {
			lines = 200
		}
		checkRendered(t, out, budget, lines)
	})
}

// TestRenderQuestionsPacksExactly checks the question-and-answer blocks'
// size accounting: the full document fits a budget of exactly its size, and
// one byte less drops an entry instead of cutting a line.
func TestRenderQuestionsPacksExactly(t *testing.T) {
	s := newTestStore()
	for i, qa := range [][2]string{{"How do I run the tests?", "go test -race ./..."}, {"Which Go?", "1.24 or newer"}, {"Where is the store?", ".darwin-memo/lessons.json"}} {
		e, err := s.Add(NewLesson{Question: qa[0], Answer: qa[1]})
		if err != nil {
			t.Fatal(err)
		}
		e.Energy = float64(3 - i)
	}
	// Budget and line cap of as many digits as the checks below use, so the
	// header line has the same length.
	full, err := s.Render(RenderOptions{Questions: true, Label: "l.json", Budget: 999, MaxLines: 99})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(full, []byte("- Q: How do I run the tests?\n  A: go test -race ./...\n  (id ")) || !bytes.Contains(full, []byte("yields no ticket")) {
		t.Fatalf("rendering:\n%s", full)
	}
	lines := bytes.Count(full, []byte("\n"))
	for _, c := range []struct {
		budget, lines int
		shown         string
	}{
		{len(full), lines, "3 of 3"},
		{len(full) - 1, lines, "2 of 3"},
		{len(full), lines - 1, "2 of 3"},
	} {
		out, err := s.Render(RenderOptions{Questions: true, Label: "l.json", Budget: c.budget, MaxLines: c.lines})
		if err != nil {
			t.Fatal(err)
		}
		checkRendered(t, out, c.budget, c.lines)
		if !bytes.Contains(out, []byte(c.shown+" living entries shown")) {
			t.Errorf("budget %d lines %d: want %s shown:\n%s", c.budget, c.lines, c.shown, out)
		}
	}
}

func TestRenderMissingBreaksCommentDelimitersInThePath(t *testing.T) {
	out := RenderMissing("evil-->\n# heading<!--x.json")
	if bytes.Count(out, []byte("-->")) != 1 || bytes.Count(out, []byte("<!--")) != 1 || bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("RenderMissing = %q", out)
	}
}
