package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cliCommands reads the command names from the composite literals returned
// by func commands() in the CLI's main.go (each element is
// {"name", "summary", run}).
func cliCommands(filename, src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filename, src, 0)
	if err != nil {
		return nil, err
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "commands" {
			fn = fd
		}
	}
	if fn == nil || fn.Body == nil {
		return nil, fmt.Errorf("%s: no func commands()", filename)
	}
	var names []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		for _, r := range ret.Results {
			list, ok := r.(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, e := range list.Elts {
				cmd, ok := e.(*ast.CompositeLit)
				if !ok || len(cmd.Elts) == 0 {
					continue
				}
				first := cmd.Elts[0]
				if _, keyed := first.(*ast.KeyValueExpr); keyed {
					first = nil
					for _, x := range cmd.Elts {
						kv := x.(*ast.KeyValueExpr)
						if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "name" {
							first = kv.Value
						}
					}
				}
				lit, ok := first.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil {
					names = append(names, s)
				}
			}
		}
		return false
	})
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: func commands() returns no {\"name\", ...} literals", filename)
	}
	return names, nil
}

// exitCodes reads the exit* constants of the CLI's main.go.
func exitCodes(filename, src string) (map[string]int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filename, src, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "exit") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
					v, _ := strconv.Atoi(lit.Value)
					out[strings.ToLower(strings.TrimPrefix(n.Name, "exit"))] = v
				}
			}
		}
	}
	return out, nil
}

var reCommandWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// readmeCommands returns the single-word code spans of the README's "The
// CLI" section: the commands it lists.
func readmeCommands(readme string) []string {
	var text []string
	for _, l := range parseMarkdown(readme).section("The CLI") {
		text = append(text, l.text)
	}
	var out []string
	for _, s := range codeSpans(strings.Join(text, "\n")) {
		if reCommandWord.MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

func diffSets(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		inA[x] = true
	}
	for _, x := range b {
		inB[x] = true
	}
	for _, x := range sortedKeys(inA) {
		if !inB[x] {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range sortedKeys(inB) {
		if !inA[x] {
			onlyB = append(onlyB, x)
		}
	}
	return onlyA, onlyB
}

// The README's "The CLI" section lists exactly the commands the binary
// offers, and states its exit codes.
func TestCLICommandsDocumented(t *testing.T) {
	root := repoRoot(t)
	const mainGo = "cmd/darwin-memo/main.go"
	src := readFile(t, root, mainGo)
	cmds, err := cliCommands(mainGo, src)
	if err != nil {
		t.Fatal(err)
	}
	documented := readmeCommands(readFile(t, root, "README.md"))
	if len(documented) == 0 {
		t.Fatal("README.md: no commands found in the section \"The CLI\"")
	}
	onlyCode, onlyDocs := diffSets(cmds, documented)
	for _, c := range onlyCode {
		t.Errorf("README.md \"The CLI\": command %q (in %s) is not listed", c, mainGo)
	}
	for _, c := range onlyDocs {
		t.Errorf("README.md \"The CLI\": lists `%s`, which %s does not offer", c, mainGo)
	}

	codes, err := exitCodes(mainGo, src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"ok": 0, "error": 1, "usage": 2, "abstained": 3}
	for name, v := range want {
		if got, ok := codes[name]; !ok || got != v {
			t.Errorf("%s: exit%s = %d (present %v); the README and the brief say %d", mainGo, strings.ToUpper(name[:1])+name[1:], got, ok, v)
		}
	}
	var text []string
	for _, l := range parseMarkdown(readFile(t, root, "README.md")).section("The CLI") {
		text = append(text, l.text)
	}
	phrase := fmt.Sprintf("Exit codes: %d ok, %d error, %d usage,\n%d abstained", codes["ok"], codes["error"], codes["usage"], codes["abstained"])
	if !strings.Contains(strings.Join(strings.Fields(strings.Join(text, " ")), " "), strings.Join(strings.Fields(phrase), " ")) {
		t.Errorf("README.md \"The CLI\" does not state %q", strings.Join(strings.Fields(phrase), " "))
	}
}

func TestCLICommandParsers(t *testing.T) {
	src := `package main
func commands() []command {
	return []command{
		{"decide", "consult", runDecide},
		{name: "query", summary: "rank", run: runQuery},
		// {"commented", "out", nil},
	}
}
const (
	exitOK = 0
	exitAbstained = 3
)`
	got, err := cliCommands("main.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "decide,query" {
		t.Errorf("cliCommands = %q, want decide, query", got)
	}
	if _, err := cliCommands("main.go", "package main\nfunc other() {}"); err == nil {
		t.Error("cliCommands found commands in a file without func commands()")
	}
	codes, err := exitCodes("main.go", src)
	if err != nil || codes["ok"] != 0 || codes["abstained"] != 3 {
		t.Errorf("exitCodes = %v, %v", codes, err)
	}
	readme := "# x\n\n## The CLI\n\n`go install x@latest`, then `darwin-memo help`. Takes `--store PATH`: `decide`, `why`/`obituary`.\n\n## Next\n\n`other`\n"
	if got := strings.Join(readmeCommands(readme), ","); got != "decide,why,obituary" {
		t.Errorf("readmeCommands = %q, want decide,why,obituary", got)
	}
	a, b := diffSets([]string{"decide", "bench"}, []string{"decide", "gone"})
	if strings.Join(a, ",") != "bench" || strings.Join(b, ",") != "gone" {
		t.Errorf("diffSets = %q, %q", a, b)
	}
}
