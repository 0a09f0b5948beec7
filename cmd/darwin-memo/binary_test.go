package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI is a store tool: it links no benchmark (go run ./bench/selection runs that) and leaves
// the Go runtime's memory management alone (no collector switch, no huge-page advice).
func TestBinaryLinksNoBenchmarkAndTunesNoRuntime(t *testing.T) {
	deps, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(deps)) {
		if strings.HasPrefix(dep, "github.com/darwin-memo/darwin-memo-action/bench/") {
			t.Errorf("cmd/darwin-memo links %s; the benchmark runs with go run ./bench/selection", dep)
		}
	}
	forbidden := map[string]bool{
		"debug.SetGCPercent": true, "debug.SetMemoryLimit": true, "runtime.GC": true,
		"syscall.Mmap": true, "syscall.Madvise": true, "unix.Madvise": true, "unix.Mmap": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && forbidden[x.Name+"."+sel.Sel.Name] {
				t.Errorf("%s calls %s.%s", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}
