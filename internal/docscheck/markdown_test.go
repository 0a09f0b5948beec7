package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// repoRoot finds the module root (the directory holding go.mod) above the
// test's working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// readFile reads a repository file by its slash path.
func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(data)
}

// markdownFiles lists README.md and docs/*.md as slash paths.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	return files
}

// line is one Markdown source line outside fenced code, with its 1-based
// number.
type line struct {
	n    int
	text string
}

// codeBlock is a fenced code block: its info string's first word and its
// content, with the fence's indentation removed.
type codeBlock struct {
	lang string
	line int // line of the opening fence
	body string
}

// doc is a Markdown file split into prose lines and fenced code blocks.
type doc struct {
	prose  []line
	blocks []codeBlock
}

// parseMarkdown separates fenced code blocks (``` or ~~~, possibly
// indented, as inside list items) from the prose.
func parseMarkdown(src string) doc {
	var d doc
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimLeft(l, " \t")
		fence := fenceOf(trimmed)
		if fence == "" {
			d.prose = append(d.prose, line{i + 1, l})
			continue
		}
		indent := len(l) - len(trimmed)
		info := strings.Fields(strings.TrimLeft(trimmed, fence[:1]))
		b := codeBlock{line: i + 1}
		if len(info) > 0 {
			b.lang = strings.ToLower(info[0])
		}
		var body []string
		for i++; i < len(lines); i++ {
			c := lines[i]
			ct := strings.TrimLeft(c, " \t")
			if strings.HasPrefix(ct, fence) && strings.Trim(ct, fence[:1]+" \t") == "" {
				break
			}
			cut := 0
			for cut < indent && cut < len(c) && (c[cut] == ' ' || c[cut] == '\t') {
				cut++
			}
			body = append(body, c[cut:])
		}
		b.body = strings.Join(body, "\n")
		d.blocks = append(d.blocks, b)
	}
	return d
}

// fenceOf returns the fence (``` or ~~~, at least three) opening a trimmed
// line, or "".
func fenceOf(trimmed string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(trimmed) && trimmed[n] == c {
			n++
		}
		if n >= 3 {
			return trimmed[:n]
		}
	}
	return ""
}

// scanCodeSpans finds the inline code spans (`x`, “x“) of s. It returns s
// with every span blanked to spaces (so link-like text inside code is not read
// as a link, and byte offsets are kept) and the spans' trimmed contents.
// Unclosed backticks are literal text.
func scanCodeSpans(s string) (blanked string, spans []string) {
	b := []byte(s)
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := run(s, i)
		end := -1
		for j := i + n; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			if m := run(s, j); m == n {
				end = j
				break
			} else {
				j += m
			}
		}
		if end < 0 {
			i += n
			continue
		}
		spans = append(spans, strings.TrimSpace(s[i+n:end]))
		for k := i; k < end+n; k++ {
			b[k] = ' '
		}
		i = end + n
	}
	return string(b), spans
}

// run is the length of the run of backticks starting at s[i].
func run(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// stripCodeSpans blanks the inline code spans of s.
func stripCodeSpans(s string) string {
	b, _ := scanCodeSpans(s)
	return b
}

// codeSpans returns the contents of the inline code spans of s.
func codeSpans(s string) []string {
	_, spans := scanCodeSpans(s)
	return spans
}

// link is a Markdown link or image target found in prose.
type link struct {
	line   int
	target string
}

var reLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// links returns the inline link and image targets of a document's prose.
func (d doc) links() []link {
	var out []link
	for _, l := range d.prose {
		for _, m := range reLink.FindAllStringSubmatch(stripCodeSpans(l.text), -1) {
			out = append(out, link{l.n, m[1]})
		}
	}
	return out
}

var reHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// anchors returns the GitHub anchors of a document's headings and of
// explicit <a id|name="..."> anchors.
func (d doc) anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range d.prose {
		for _, m := range reHTMLAnchor.FindAllStringSubmatch(l.text, -1) {
			out[m[1]] = true
		}
		m := reHeading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if k := seen[s]; k > 0 {
			out[s+"-"+itoa(k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

var reHTMLAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)

// slug is GitHub's heading anchor: lower case, punctuation other than '-'
// and '_' removed, spaces turned into '-'. Link markup keeps its text.
func slug(heading string) string {
	heading = reLink.ReplaceAllStringFunc(heading, func(m string) string {
		return m[strings.Index(m, "[")+1 : strings.Index(m, "]")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// section returns the prose lines under the heading whose text is title,
// up to the next heading of the same or a higher level.
func (d doc) section(title string) []line {
	var out []line
	level := 0
	for _, l := range d.prose {
		m := reHeading.FindStringSubmatch(l.text)
		if m != nil {
			if level > 0 && len(m[1]) <= level {
				break
			}
			if level == 0 && strings.TrimSpace(m[2]) == title {
				level = len(m[1])
				continue
			}
		}
		if level > 0 {
			out = append(out, l)
		}
	}
	return out
}

// tableRow is one body row of a Markdown table: its cells, trimmed.
type tableRow struct {
	line  int
	cells []string
}

// firstTable returns the body rows of the first pipe table among lines
// (the header and the delimiter row are dropped).
func firstTable(lines []line) []tableRow {
	var rows []tableRow
	started := false
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if !strings.HasPrefix(t, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		rows = append(rows, tableRow{l.n, splitRow(t)})
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:]
}

// splitRow splits a table row on pipes outside code spans and escapes.
func splitRow(row string) []string {
	blank := stripCodeSpans(row)
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		if blank[i] == '|' && (i == 0 || row[i-1] != '\\') {
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	cells = append(cells, strings.TrimSpace(row[start:]))
	// A row "| a | b |" splits into "", "a", "b", "".
	if len(cells) > 0 && cells[0] == "" {
		cells = cells[1:]
	}
	if len(cells) > 0 && cells[len(cells)-1] == "" && strings.HasSuffix(strings.TrimSpace(row), "|") {
		cells = cells[:len(cells)-1]
	}
	return cells
}

// unquote strips one pair of surrounding backticks from a table cell.
func unquote(cell string) string {
	cell = strings.TrimSpace(cell)
	if len(cell) >= 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") {
		return strings.TrimSpace(strings.Trim(cell, "`"))
	}
	return cell
}
