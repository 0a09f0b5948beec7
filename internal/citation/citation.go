// Package citation owns the convention by which a lesson cites the code it describes, and
// checks those citations against a working tree.
//
// A citation is one of a lesson's sources (darwin-memo's free-form provenance labels):
//
//	path:internal/x.go          the file (or directory) internal/x.go
//	path:internal/x.go#Decide   the identifier Decide, somewhere in internal/x.go
//	path-removed:internal/x.go  a citation a merged pull request removed the file of
//
// Paths are slash-separated and relative to the repository root. A path that is absolute,
// climbs out of the root with "..", or holds a NUL or a backslash is invalid: it is never
// looked up. The package knows nothing of the store: callers give it a lesson's sources as
// strings and get strings back.
package citation

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The source-label prefixes of a live citation and of one recorded as removed.
const (
	Prefix        = "path:"
	RemovedPrefix = "path-removed:"
)

// MaxLen is the longest citation path accepted (GitHub's own paths stop well short of it).
const MaxLen = 4096

// Citation is one parsed citation.
type Citation struct {
	Path    string `json:"path,omitempty"`    // cleaned, slash-separated, relative to the repository root
	Symbol  string `json:"symbol,omitempty"`  // an identifier the file must contain as a whole word; "" for none
	Removed bool   `json:"removed,omitempty"` // recorded as removed by a merged pull request (path-removed:)
}

// Target is the path with its symbol, as written after the prefix: "x.go" or "x.go#Fn".
func (c Citation) Target() string {
	if c.Symbol == "" {
		return c.Path
	}
	return c.Path + "#" + c.Symbol
}

// Source is the citation as a lesson's source label; Parse reads it back to c.
func (c Citation) Source() string {
	if c.Removed {
		return RemovedPrefix + c.Target()
	}
	return Prefix + c.Target()
}

// ErrNotCitation is Parse's error for a source that is not a citation at all ("pr#12").
var ErrNotCitation = errors.New("not a citation")

// Parse reads one source label. A label without either prefix returns ErrNotCitation; one
// with a prefix and an invalid path or symbol returns an error that says why.
func Parse(source string) (Citation, error) {
	var c Citation
	rest, ok := strings.CutPrefix(source, Prefix)
	if !ok {
		if rest, ok = strings.CutPrefix(source, RemovedPrefix); !ok {
			return Citation{}, ErrNotCitation
		}
		c.Removed = true
	}
	p, sym, hasSym := strings.Cut(rest, "#")
	if hasSym {
		if err := checkSymbol(sym); err != nil {
			return Citation{}, err
		}
		c.Symbol = sym
	}
	clean, err := CleanPath(p)
	if err != nil {
		return Citation{}, err
	}
	c.Path = clean
	return c, nil
}

// CleanPath validates a path as a citation's and returns it cleaned ("./a//b" is "a/b").
// It refuses what could reach outside the repository or mean something else on another
// system: empty, absolute, climbing out with "..", a NUL or other control character, a
// backslash, a Windows drive ("C:"), and invalid UTF-8.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("empty citation path")
	case len(p) > MaxLen:
		return "", fmt.Errorf("citation path longer than %d bytes", MaxLen)
	case !utf8.ValidString(p):
		return "", errors.New("citation path is not valid UTF-8")
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("citation path %q is absolute; cite it relative to the repository root", p)
	case strings.Contains(p, `\`):
		return "", fmt.Errorf("citation path %q has a backslash; use forward slashes", p)
	case strings.ContainsFunc(p, unicode.IsControl):
		return "", fmt.Errorf("citation path %q has a control character", p)
	}
	clean := path.Clean(p)
	if len(clean) >= 2 && clean[1] == ':' && isASCIILetter(clean[0]) { // after cleaning: "./C:" is "C:"
		return "", fmt.Errorf("citation path %q names a drive", p)
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("citation path %q climbs out of the repository", p)
	}
	if clean == "." {
		return "", fmt.Errorf("citation path %q names the repository root, not a file", p)
	}
	return clean, nil
}

// checkSymbol accepts an identifier: a letter, "_" or "$", then letters, digits, "_" or "$".
func checkSymbol(s string) error {
	if s == "" {
		return errors.New("empty citation symbol after #")
	}
	for i, r := range s {
		if !identRune(r) || (i == 0 && unicode.IsDigit(r)) {
			return fmt.Errorf("citation symbol %q is not an identifier", s)
		}
	}
	return nil
}

func identRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// FromPath turns a path a person gives (add --cite PATH, optionally PATH#Symbol) into the
// citation's source label, or says why it is not one.
func FromPath(arg string) (string, error) {
	c, err := Parse(Prefix + arg)
	if err != nil {
		return "", err
	}
	return c.Source(), nil
}

// Mentions is a cheap pre-check: whether any source starts with a citation prefix (it may
// still be invalid). A lesson without one cites nothing.
func Mentions(sources []string) bool {
	for _, s := range sources {
		if strings.HasPrefix(s, Prefix) || strings.HasPrefix(s, RemovedPrefix) {
			return true
		}
	}
	return false
}
