// Package layering holds the module's import rules, as go/build's deps_test.go holds the
// standard library's: each rule names the packages it applies to and the packages they must not
// depend on, directly or through others (`go list -deps`). docs/architecture.md describes the
// same layers.
package layering

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/darwin-memo/darwin-memo-action"

// instruments are the packages that measure or demonstrate the product (docs/architecture.md,
// "Instruments"): no product package depends on them, save the CLI on internal/demo (the
// `demo` command, which links internal/ghfake).
var instruments = []string{
	"bench/...", "internal/demo", "internal/ghfake/...", "internal/rank/textgen", "internal/tinygguf/...",
	"internal/golden", "internal/exhaustive", "internal/docscheck", "internal/releasecheck", "internal/layering",
}

// testSupport is what no product binary links: the testing packages, and the repository's
// test-only helpers.
var testSupport = []string{"testing", "testing/...", "net/http/httptest", "internal/golden", "internal/exhaustive", "internal/ghfake/ghschema"}

// rule: the packages from (patterns) but those in skip depend on none of the packages in not
// (patterns), except those in allow. A rule not enforced yet (enforced false) is only logged while it is broken,
// and fails once it holds, so whoever makes it hold turns it on.
type rule struct {
	name     string
	from     []string
	skip     []string
	not      []string
	allow    []string
	enforced bool
	why      string
}

var rules = []rule{
	{
		name: "settle and encode never depend on lessons", from: []string{"settle/...", "encode/..."},
		not: []string{"lessons/..."}, enforced: true,
		why: "measurement and encoding know nothing of the store: internal/action passes them what they need",
	},
	{
		name: "the rankings never depend on the store", from: []string{"internal/rank/..."},
		not: []string{"lessons/...", "internal/pyjson"}, enforced: true,
		why: "internal/rank ranks plain lessons (rank.Source); lessons adapts its entries to it, so ranking code cannot creep back into the store",
	},
	{
		name: "the store document never depends on the store's model", from: []string{"internal/storedoc/..."},
		not: []string{"lessons/...", "internal/rank/..."}, enforced: true,
		why: "internal/storedoc is the file (lock, atomic writes, side files, extensions, the three-way merge) on internal/pyjson; lessons builds its model on it, so the model cannot creep into the file layer",
	},
	{
		name: "product packages never depend on an instrument", from: []string{"..."}, skip: []string{"cmd/..."},
		not: instruments, enforced: true,
		why: "instruments (fakes, benchmarks, generators) are linked only into tests and the CLI's demo",
	},
	{
		name: "the CLI links no instrument but the demo", from: []string{"cmd/darwin-memo"},
		not: instruments, allow: []string{"internal/demo", "internal/ghfake"}, enforced: true,
		why: "`go run ./bench/selection` runs the selection benchmark; the binary does not carry it",
	},
	{
		name: "no product binary links test support", from: []string{"cmd/darwin-memo"},
		not: testSupport, enforced: true,
		why: "the binary and the action image carry no testing code (internal/ghfake takes a TB interface of its own)",
	},
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Standard   bool
	Deps       []string
}

// rel is a module package's path relative to the module; a standard package's path as it is.
func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

// matches reports whether the package p (relative) matches one of the patterns: a path, or a
// path ending in /... for it and everything under it ("..." alone: every module package).
func matches(p string, patterns []string) bool {
	for _, pat := range patterns {
		switch {
		case pat == "...":
			return true
		case strings.HasSuffix(pat, "/..."):
			base := strings.TrimSuffix(pat, "/...")
			if p == base || strings.HasPrefix(p, base+"/") {
				return true
			}
		case p == pat:
			return true
		}
	}
	return false
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Standard,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violations returns, for each package r applies to, the dependencies it forbids.
func (r rule) violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from := rel(p.ImportPath)
		if !matches(from, r.from) || matches(from, r.skip) || matches(from, instruments) {
			continue
		}
		for _, d := range p.Deps {
			dep := rel(d)
			if matches(dep, r.not) && !matches(dep, r.allow) {
				out = append(out, from+" -> "+dep)
			}
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	pkgs := listPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	for _, r := range rules {
		t.Run(strings.ReplaceAll(r.name, " ", "_"), func(t *testing.T) {
			v := r.violations(pkgs)
			switch {
			case r.enforced && len(v) > 0:
				t.Errorf("%s (%s), broken by:\n%s", r.name, r.why, strings.Join(v, "\n"))
			case !r.enforced && len(v) > 0:
				t.Logf("not enforced yet: %s (%s), broken by:\n%s", r.name, r.why, strings.Join(v, "\n"))
			case !r.enforced:
				t.Errorf("%s holds now: set enforced to true in its rule", r.name)
			}
		})
	}
}

// The rules catch what they are written to catch: a made-up module whose packages break each
// enforced rule.
func TestRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return path.Join(module, p) }
	pkgs := []pkg{
		{ImportPath: m("settle"), Deps: []string{m("lessons"), m("internal/pyjson")}},
		{ImportPath: m("encode/sub"), Deps: []string{m("lessons")}},
		{ImportPath: m("internal/action"), Deps: []string{m("internal/ghfake"), "net/http"}},
		{ImportPath: m("internal/report"), Deps: []string{m("bench/selection/sim")}},
		{ImportPath: m("cmd/darwin-memo"), Deps: []string{m("internal/demo"), m("internal/ghfake"), m("bench/selection/report"), "testing", "net/http/httptest"}},
		{ImportPath: m("internal/demo"), Deps: []string{m("internal/ghfake"), "testing"}},
		{ImportPath: m("internal/rank"), Deps: []string{m("lessons"), m("internal/pyjson")}},
		{ImportPath: m("internal/storedoc"), Deps: []string{m("lessons"), m("internal/pyjson"), m("internal/rank")}},
	}
	want := map[string][]string{
		"settle and encode never depend on lessons":             {"settle -> lessons", "encode/sub -> lessons"},
		"the rankings never depend on the store":                {"internal/rank -> lessons", "internal/rank -> internal/pyjson"},
		"product packages never depend on an instrument":        {"internal/action -> internal/ghfake", "internal/report -> bench/selection/sim"},
		"the CLI links no instrument but the demo":              {"cmd/darwin-memo -> bench/selection/report"},
		"no product binary links test support":                  {"cmd/darwin-memo -> testing", "cmd/darwin-memo -> net/http/httptest"},
		"the store document never depends on the store's model": {"internal/storedoc -> lessons", "internal/storedoc -> internal/rank"},
	}
	for _, r := range rules {
		if got := r.violations(pkgs); strings.Join(got, ";") != strings.Join(want[r.name], ";") {
			t.Errorf("%s: %q, want %q", r.name, got, want[r.name])
		}
	}
}
