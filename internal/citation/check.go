package citation

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// State is what a check found of one citation.
type State string

const (
	OK      State = "ok"      // the path exists (and holds the symbol, if one is cited)
	Missing State = "missing" // the path or the symbol is gone, or a merge recorded it removed
	Invalid State = "invalid" // the label is not a valid citation; it was not looked up
)

// Result is one citation of a lesson as checked. Its JSON is what decide, query and the
// MCP tools show per citation: {"source", "path", "symbol", "removed", "state", "reason"}
// (symbol, removed and reason only when set).
type Result struct {
	Source   string `json:"source"` // the source label as the lesson holds it
	Citation        // parsed; zero when State is Invalid
	State    State  `json:"state"`
	Reason   string `json:"reason,omitempty"` // why it is missing or invalid; "" when OK
}

// Text is the one-line account of a citation that does not hold: "cites src/old.go, which
// no longer exists"; "" for one that does.
func (r Result) Text() string {
	switch {
	case r.State == Invalid:
		return fmt.Sprintf("cites %q, which is not a valid citation (%s)", r.Source, r.Reason)
	case r.State == OK:
		return ""
	case r.Symbol != "" && r.Reason == reasonNoSymbol:
		return fmt.Sprintf("cites %s, which no longer has %s", r.Path, r.Symbol)
	}
	return fmt.Sprintf("cites %s, which no longer exists", r.Target())
}

const (
	reasonNoFile   = "no such file"
	reasonNoSymbol = "no such symbol in the file"
	reasonRemoved  = "removed by a merged pull request"
)

// Stale reports whether a lesson with these checked citations has citations and none holds:
// such a lesson does not decide. A lesson without citations is not stale.
func Stale(results []Result) bool {
	if len(results) == 0 {
		return false
	}
	for _, r := range results {
		if r.State == OK {
			return false
		}
	}
	return true
}

// MaxSymbolScan is how much of a file a symbol is searched for in: a symbol cited past it
// in a larger file is reported missing.
const MaxSymbolScan = 8 << 20

// Checker checks citations against one working tree. It never looks outside its root:
// lookups go through os.Root, which refuses paths and symbolic links that leave it. A
// Checker remembers what it found for each path, so a query's hits that cite the same file
// cost one lookup; make one per query (the tree may change between queries). It is not safe
// for concurrent use.
type Checker struct {
	root  *os.Root
	files map[string]bool            // path: exists
	syms  map[string]map[string]bool // path: symbol: found
}

// Open returns a Checker for the working tree at dir.
func Open(dir string) (*Checker, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("citations: opening the working tree: %w", err)
	}
	return &Checker{root: r, files: map[string]bool{}, syms: map[string]map[string]bool{}}, nil
}

// OpenFor returns a Checker for the working tree of the repository that holds the store at
// storePath, or nil when there is none or it cannot be opened: a nil Checker checks nothing
// (every lesson stands).
func OpenFor(storePath string) *Checker {
	root, err := RepoRoot(storePath)
	if err != nil {
		return nil
	}
	c, err := Open(root)
	if err != nil {
		return nil
	}
	return c
}

// Close releases the root.
func (c *Checker) Close() error {
	if c == nil {
		return nil
	}
	return c.root.Close()
}

// Check checks the citations among one lesson's sources, in their order; sources that are
// not citations are left out. A nil Checker, or sources that cite nothing, give nil.
func (c *Checker) Check(sources []string) []Result {
	if c == nil || !Mentions(sources) {
		return nil
	}
	var out []Result
	for _, s := range sources {
		cit, err := Parse(s)
		switch {
		case errors.Is(err, ErrNotCitation):
			continue
		case err != nil:
			out = append(out, Result{Source: s, State: Invalid, Reason: err.Error()})
			continue
		}
		r := Result{Source: s, Citation: cit, State: OK}
		switch {
		case cit.Removed:
			r.State, r.Reason = Missing, reasonRemoved
		case !c.exists(cit.Path):
			r.State, r.Reason = Missing, reasonNoFile
		case cit.Symbol != "" && !c.hasSymbol(cit.Path, cit.Symbol):
			r.State, r.Reason = Missing, reasonNoSymbol
		}
		out = append(out, r)
	}
	return out
}

func (c *Checker) exists(p string) bool {
	if ok, seen := c.files[p]; seen {
		return ok
	}
	_, err := c.root.Stat(filepath.FromSlash(p))
	c.files[p] = err == nil
	return err == nil
}

func (c *Checker) hasSymbol(p, sym string) bool {
	m := c.syms[p]
	if m == nil {
		m = map[string]bool{}
		c.syms[p] = m
	}
	if found, seen := m[sym]; seen {
		return found
	}
	found := c.search(p, sym)
	m[sym] = found
	return found
}

// search reads up to MaxSymbolScan bytes of the file (not a directory) and looks for sym as
// a whole word.
func (c *Checker) search(p, sym string) bool {
	f, err := c.root.Open(filepath.FromSlash(p))
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSymbolScan))
	if err != nil {
		return false
	}
	return containsWord(b, []byte(sym))
}

// containsWord reports whether w occurs in b with no identifier character on either side.
func containsWord(b, w []byte) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], w)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(w)
		before, _ := utf8.DecodeLastRune(b[:start])
		after, _ := utf8.DecodeRune(b[end:])
		if (start == 0 || !identRune(before)) && (end == len(b) || !identRune(after)) {
			return true
		}
		off = start + 1
	}
}
