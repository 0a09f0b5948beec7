package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pkgIdents is what a package declares: top-level names, and per type its
// methods and struct fields (embedded fields by their type name).
type pkgIdents struct {
	top     map[string]bool
	members map[string]map[string]bool // type name -> method and field names
	methods map[string]bool            // every method name, any receiver
}

// parsePackage reads the non-test Go files of dir.
func parsePackage(dir string) (*pkgIdents, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &pkgIdents{top: map[string]bool{}, members: map[string]map[string]bool{}, methods: map[string]bool{}}
	fset := token.NewFileSet()
	files := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files++
		p.add(f)
	}
	if files == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	return p, nil
}

func (p *pkgIdents) member(typ, name string) {
	if p.members[typ] == nil {
		p.members[typ] = map[string]bool{}
	}
	p.members[typ][name] = true
}

func (p *pkgIdents) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				p.top[d.Name.Name] = true
				continue
			}
			p.methods[d.Name.Name] = true
			if typ := recvType(d.Recv.List[0].Type); typ != "" {
				p.member(typ, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					p.top[s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							if len(fld.Names) == 0 {
								if n := recvType(fld.Type); n != "" {
									p.member(s.Name.Name, n)
								}
							}
							for _, n := range fld.Names {
								p.member(s.Name.Name, n.Name)
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.top[n.Name] = true
					}
				}
			}
		}
	}
}

// recvType names the type of a receiver or embedded field (T, *T, T[X],
// pkg.T).
func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// has reports whether a cited name exists: "X" is a top-level name or a
// method of any type (unexported helpers are cited by bare name); "T.M" is
// a method or field of type T.
func (p *pkgIdents) has(parts []string) bool {
	switch len(parts) {
	case 1:
		return p.top[parts[0]] || p.methods[parts[0]]
	case 2:
		return p.members[parts[0]][parts[1]]
	}
	return false
}

// citedPackages maps the package names docs cite as `name.Ident` to their
// directories.
var citedPackages = map[string]string{
	"settle":  "settle",
	"junit":   "internal/junit",
	"ghapi":   "internal/ghapi",
	"action":  "internal/action",
	"lessons": "lessons",
	"encode":  "encode",
	"rank":    "internal/rank",
	"botpr":   "internal/botpr",
	"ghfake":  "internal/ghfake",
}

// A code span such as `settle.Measure`, `settle.FlakyHistory.Update` or
// `(*settle.FlakyHistory).Update`, optionally called: `settle.Measure(...)`.
var reCitation = regexp.MustCompile(`^\(?\*?([a-z][a-z0-9]*)\.([A-Za-z_][A-Za-z0-9_]*)\)?(?:\.([A-Za-z_][A-Za-z0-9_]*))?(?:\(.*\))?$`)

// fileWords are extensions that make `lessons.json` a file name, not a
// citation.
var fileWords = map[string]bool{"json": true, "md": true, "go": true, "xml": true, "yml": true, "yaml": true,
	"zip": true, "txt": true, "svg": true, "sh": true, "test": true, "mod": true, "sum": true, "lock": true, "gguf": true}

// citation is a Go identifier a document cites.
type citation struct {
	line  int
	text  string
	pkg   string
	parts []string
}

// citations returns the `pkg.Ident` code spans of a Markdown document whose
// pkg is in known.
func citations(src string, known map[string]string) []citation {
	var out []citation
	for _, l := range parseMarkdown(src).prose {
		for _, s := range codeSpans(l.text) {
			m := reCitation.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			if _, ok := known[m[1]]; !ok || fileWords[strings.ToLower(m[2])] {
				continue
			}
			parts := []string{m[2]}
			if m[3] != "" {
				parts = append(parts, m[3])
			}
			out = append(out, citation{l.n, s, m[1], parts})
		}
	}
	return out
}

// Every Go identifier the docs cite as `pkg.Name` (for this module's
// packages) exists in that package's code.
func TestCitedIdentifiersExist(t *testing.T) {
	root := repoRoot(t)
	pkgs := map[string]*pkgIdents{}
	load := func(name string) *pkgIdents {
		if p, ok := pkgs[name]; ok {
			return p
		}
		p, err := parsePackage(filepath.Join(root, filepath.FromSlash(citedPackages[name])))
		if err != nil {
			t.Errorf("package %s (%s): %v", name, citedPackages[name], err)
		}
		pkgs[name] = p
		return p
	}
	total := 0
	for _, file := range markdownFiles(t, root) {
		for _, c := range citations(readFile(t, root, file), citedPackages) {
			total++
			p := load(c.pkg)
			if p == nil {
				continue
			}
			if !p.has(c.parts) {
				t.Errorf("%s:%d: `%s` cites %s.%s, which package %s (%s) does not declare",
					file, c.line, c.text, c.pkg, strings.Join(c.parts, "."), c.pkg, citedPackages[c.pkg])
			}
		}
	}
	if total == 0 {
		t.Fatal("no `pkg.Ident` citations found in the docs; the scanner is broken")
	}
}

// Every output action.yml declares is set in internal/action. (Its inputs are held by
// internal/action's TestInputsMatchActionYML against the table that parses them.)
func TestActionOutputsAreSet(t *testing.T) {
	root := repoRoot(t)
	a := loadAction(t, root)
	dir := filepath.Join(root, "internal", "action")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	literals := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if n, ok := n.(*ast.BasicLit); ok && n.Kind == token.STRING {
				v, _ := strconv.Unquote(n.Value)
				literals[v] = true
			}
			return true
		})
	}
	for _, n := range sortedKeys(a.outputNames()) {
		if !literals[n] {
			t.Errorf("action.yml declares output %q but no string %q appears in internal/action", n, n)
		}
	}
}

func TestCitations(t *testing.T) {
	src := "Uses `settle.Measure`, `settle.FlakyHistory.Update`, `(*settle.FlakyHistory).Update`, " +
		"`junit.ID(classname, name)`, `lessons.json`, `docs/junit.md`, `other.Thing`, `settle`.\n\n```go\nsettle.Hidden()\n```\n"
	got := citations(src, map[string]string{"settle": "", "junit": "", "lessons": ""})
	var texts []string
	for _, c := range got {
		texts = append(texts, c.pkg+":"+strings.Join(c.parts, "."))
	}
	want := "settle:Measure,settle:FlakyHistory.Update,settle:FlakyHistory.Update,junit:ID"
	if strings.Join(texts, ",") != want {
		t.Errorf("citations = %q, want %q", texts, want)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", `package x
type T struct{ Field int; Embedded }
type Embedded struct{}
func (t *T) Method() {}
func (Embedded) other() {}
func Top() {}
const C = 1
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &pkgIdents{top: map[string]bool{}, members: map[string]map[string]bool{}, methods: map[string]bool{}}
	p.add(f)
	for _, ok := range [][]string{{"T"}, {"Top"}, {"C"}, {"T", "Method"}, {"T", "Field"}, {"T", "Embedded"}, {"other"}} {
		if !p.has(ok) {
			t.Errorf("has(%q) = false", ok)
		}
	}
	for _, bad := range [][]string{{"Missing"}, {"T", "Nope"}, {"Top", "X"}} {
		if p.has(bad) {
			t.Errorf("has(%q) = true", bad)
		}
	}
}
