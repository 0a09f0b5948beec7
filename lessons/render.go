package lessons

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/darwin-memo/darwin-memo-action/internal/rank"
)

// RenderOptions tune Render.
type RenderOptions struct {
	Budget   int    // hard byte budget of the output; default 25 KiB
	MaxLines int    // hard line cap; default 200
	Label    string // store name shown in the header; default the file's base name
	// Questions renders each entry with its question above its answer (three
	// lines, "- Q: ...", "  A: ...", the id line) and says under the header
	// that reading the file yields no ticket. False gives darwin-memo's
	// two-line blocks of answers alone.
	Questions bool
}

// consultNote follows the header of a rendering with questions: an agent
// that only reads the file gets no ticket, so the lessons it follows never
// earn energy.
const consultNote = "<!-- reading this file yields no ticket: consult a lesson with `darwin-memo decide \"QUESTION\"` or the consult tool of `darwin-memo mcp`, and put the ticket line it returns in your pull request body so CI can credit it -->"

// DefaultRenderBudget is 25 KiB.
const DefaultRenderBudget = 25 * 1024

// MaxRenderBudget bounds ParseBudget (1 GiB).
const MaxRenderBudget = 1 << 30

// ErrBudgetTooSmall is returned by Render when the budget cannot hold the
// header line: a document cut inside it would leave an unclosed "<!--".
var ErrBudgetTooSmall = errors.New("render budget too small")

// ParseBudget parses a byte budget: a number with an optional unit b, k, kb,
// m or mb (case-insensitive; k and m are 1024 and 1024²).
func ParseBudget(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suf string
		m   int
	}{{"kb", 1024}, {"mb", 1024 * 1024}, {"k", 1024}, {"m", 1024 * 1024}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("budget %q is not a size; write bytes or a size such as 25kb or 1mb", s)
	}
	b := f * float64(mult)
	if b < 1 {
		return 0, fmt.Errorf("budget %q must be at least 1 byte", s)
	}
	if b > MaxRenderBudget {
		return 0, fmt.Errorf("budget %q is larger than %d MiB", s, MaxRenderBudget>>20)
	}
	return int(b), nil
}

// Render projects the living entries into a Markdown document (for
// AGENTS.md / MEMORY.md) that never exceeds the byte budget or the line cap
// (semantics §8). Entries are ranked by (-energy, id), grouped by kind,
// groups ordered by their leader's energy then kind name, and packed
// greedily: an entry is admitted only if the whole document still fits.
// The result is deterministic: no clock is read and ties break by id. A
// lesson that a living lesson supersedes by record is marked "superseded
// by" its replacement, as a stale one is marked "cites removed files".
func (s *Store) Render(opts RenderOptions) ([]byte, error) {
	if opts.Budget == 0 {
		opts.Budget = DefaultRenderBudget
	}
	if opts.MaxLines == 0 {
		opts.MaxLines = 200
	}
	if opts.Budget < 0 {
		return nil, errors.New("render budget must be positive")
	}
	if opts.MaxLines < 0 {
		return nil, errors.New("render max-lines must be at least 1")
	}
	label := opts.Label
	if label == "" {
		label = filepath.Base(s.name)
	}
	label = collapse(label) // a file name must not close the header comment
	var ranked []*Entry
	for _, e := range s.living {
		if e.Alive() {
			ranked = append(ranked, e)
		}
	}
	slices.SortFunc(ranked, func(a, b *Entry) int {
		switch {
		case a.Energy > b.Energy:
			return -1
		case a.Energy < b.Energy:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	n := len(ranked)
	sup := rank.NewSupersession(s.living, source{s})
	header := func(shown int) string {
		return fmt.Sprintf("<!-- rendered by darwin-memo from %s: %d of %d living entries shown, budget %d bytes, %d lines -->", label, shown, n, opts.Budget, opts.MaxLines)
	}
	if h := len(header(0)) + 1; h > opts.Budget {
		return nil, fmt.Errorf("%w: %d bytes cannot hold even the header line (%d bytes)", ErrBudgetTooSmall, opts.Budget, h)
	}
	// Greedy packing with exact size accounting (every line ends in "\n").
	type block struct {
		e      *Entry
		l1, l2 string
	}
	groupCost := func(k Kind) (int, int) { return 1 + len("## ") + len(k) + 1 + 1, 3 } // "", "## kind", ""
	var shown []block
	inGroup := map[Kind]bool{}
	bytesUsed, linesUsed := 0, 0 // excluding the header line and the consult note
	note, noteLines := 0, 0
	if opts.Questions {
		note, noteLines = len(consultNote)+1, 1
	}
	// The header's length for one more entry shown, formatted again only when that count
	// changes (on a large store most entries are passed over without being shown).
	nextHeader, nextHeaderFor := 0, -1
	headerNext := func() int {
		if nextHeaderFor != len(shown) {
			nextHeader, nextHeaderFor = len(header(len(shown)+1)), len(shown)
		}
		return nextHeader
	}
	// l2Least is the fewest bytes an entry's second line takes ("  (id , balance NaN, last
	// settle )"): an entry that cannot fit even so is passed over without formatting it.
	const l2Least = len("  (id , balance NaN, last settle )")
	for _, e := range ranked {
		// Every block takes at least two lines and four bytes: once not even that fits, no
		// later entry does (on a large store this skips formatting all but the first few).
		if headerNext()+1+note+bytesUsed+4 > opts.Budget || 1+noteLines+linesUsed+2 > opts.MaxLines {
			break
		}
		least := len("- ") + collapsedAtLeast(e.Answer) + 1 + 1
		if opts.Questions {
			least += len("Q: \n  A: ") + collapsedAtLeast(e.Question)
		}
		if headerNext()+1+note+bytesUsed+least+l2Least > opts.Budget {
			continue // cannot fit: skip formatting it
		}
		l2 := fmt.Sprintf("  (id %s, balance %.3f, last settle %s)", prefix8(e.ID), e.Energy, lastSettle(e))
		if s.CitationsStale(e) {
			l2 = strings.TrimSuffix(l2, ")") + ", cites removed files)"
		}
		if by, ok := sup.Latest(e); ok {
			l2 = strings.TrimSuffix(l2, ")") + ", superseded by " + prefix8(by.ID) + ")"
		}
		if headerNext()+1+note+bytesUsed+least+len(l2) > opts.Budget {
			continue // cannot fit: skip formatting it
		}
		b := block{e: e, l1: "- " + collapse(e.Answer), l2: l2}
		if opts.Questions {
			b.l1 = "- Q: " + collapse(e.Question) + "\n  A: " + collapse(e.Answer)
		}
		nb, nl := len(b.l1)+1+len(b.l2)+1, 2+strings.Count(b.l1, "\n")
		if !inGroup[e.Kind] {
			gb, gl := groupCost(e.Kind)
			nb, nl = nb+gb, nl+gl
		}
		if headerNext()+1+note+bytesUsed+nb > opts.Budget || 1+noteLines+linesUsed+nl > opts.MaxLines {
			continue
		}
		inGroup[e.Kind] = true
		bytesUsed += nb
		linesUsed += nl
		shown = append(shown, b)
	}
	lines := []string{header(len(shown))}
	if opts.Questions {
		lines = append(lines, consultNote)
	}
	switch {
	case n == 0:
		lines = append(lines, "", "(no living entries: every lesson in this store has died, or none has been recorded yet)")
	case len(shown) == 0:
		lines = append(lines, "", fmt.Sprintf("(none of the %d living entries fits in %d bytes and %d lines; raise --budget or --max-lines)", n, opts.Budget, opts.MaxLines))
	default:
		type group struct {
			kind   Kind
			leader float64
			blocks []block
		}
		var groups []*group
		byKind := map[Kind]*group{}
		for _, b := range shown {
			g := byKind[b.e.Kind]
			if g == nil {
				g = &group{kind: b.e.Kind, leader: b.e.Energy}
				byKind[b.e.Kind] = g
				groups = append(groups, g)
			}
			g.blocks = append(g.blocks, b)
		}
		slices.SortStableFunc(groups, func(a, b *group) int {
			switch {
			case a.leader > b.leader:
				return -1
			case a.leader < b.leader:
				return 1
			}
			return strings.Compare(string(a.kind), string(b.kind))
		})
		for _, g := range groups {
			lines = append(lines, "", "## "+string(g.kind), "")
			for _, b := range g.blocks {
				lines = append(lines, strings.Split(b.l1, "\n")...)
				lines = append(lines, b.l2)
			}
		}
	}
	return truncateDoc(lines, opts.Budget, opts.MaxLines), nil
}

// truncateDoc joins lines with "\n" terminators and, as a last resort, cuts
// at a line boundary to honour the limits.
func truncateDoc(lines []string, budget, maxLines int) []byte {
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	var out []byte
	for _, l := range lines {
		if len(out)+len(l)+1 > budget {
			break // whole lines only; Render checked that the header fits
		}
		out = append(out, l...)
		out = append(out, '\n')
	}
	return out
}

// collapse puts an answer on one line: whitespace runs become one space,
// control characters are dropped, and HTML comment delimiters are broken
// so a lesson cannot hide the rest of the document (or the header) inside
// a comment.
func collapse(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	f := strings.Fields(s)
	if len(f) == 0 {
		return "(empty)"
	}
	s = strings.Join(f, " ")
	// One pass leaves "<!-->" as "<! -->": repeat until no delimiter is left (each pass
	// only inserts spaces, so this ends).
	for strings.Contains(s, "<!--") || strings.Contains(s, "-->") {
		s = commentBreaker.Replace(s)
	}
	return s
}

var commentBreaker = strings.NewReplacer("<!--", "<! --", "-->", "-- >")

// collapsedAtLeast is a lower bound of len(collapse(s)) that allocates nothing: the printable
// ASCII bytes other than spaces all survive collapse (it drops whitespace and control
// characters, and only lengthens comment delimiters).
func collapsedAtLeast(s string) int {
	n := 0
	for i := range len(s) {
		if c := s[i]; c > ' ' && c < 0x7f {
			n++
		}
	}
	return n
}

func prefix8(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func lastSettle(e *Entry) string {
	if e.LastUsedCycle < 0 {
		return "never"
	}
	return fmt.Sprintf("t%d", e.LastUsedCycle)
}

// RenderMissing is the document rendered when the store file does not exist.
func RenderMissing(path string) []byte {
	return []byte(fmt.Sprintf("<!-- darwin-memo: store not found at %s; nothing to render yet -->\n", collapse(path)))
}
