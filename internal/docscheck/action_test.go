package docscheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionMeta is the part of action.yml the checks read.
type actionMeta struct {
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
	} `yaml:"runs"`
}

func loadAction(t *testing.T, root string) actionMeta {
	t.Helper()
	var a actionMeta
	if err := yaml.Unmarshal([]byte(readFile(t, root, "action.yml")), &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if len(a.Inputs) == 0 || len(a.Outputs) == 0 {
		t.Fatalf("action.yml declares %d inputs and %d outputs; expected both", len(a.Inputs), len(a.Outputs))
	}
	return a
}

// declared returns action.yml's inputs with their defaults ("" when none).
func (a actionMeta) declared() map[string]string {
	out := map[string]string{}
	for name, in := range a.Inputs {
		d := ""
		if in.Default != nil {
			d = *in.Default
		}
		out[name] = d
	}
	return out
}

func (a actionMeta) outputNames() map[string]bool {
	out := map[string]bool{}
	for name := range a.Outputs {
		out[name] = true
	}
	return out
}

// documentedDefault normalises a default cell of a docs table to the value
// action.yml would declare: backticks removed, an empty cell is "", and for
// base, "default branch" stands for "" (the action's meaning of empty).
func documentedDefault(input, cell string) string {
	v := unquote(cell)
	if input == "base" && strings.EqualFold(v, "default branch") {
		return ""
	}
	return v
}

// checkInputTable compares the rows of an inputs table (name, default, ...)
// with action.yml and returns every mismatch.
func checkInputTable(file string, rows []tableRow, declared map[string]string) []string {
	var problems []string
	seen := map[string]int{}
	for _, r := range rows {
		if len(r.cells) < 2 {
			problems = append(problems, fmt.Sprintf("%s:%d: inputs table row has %d cells, want name, default, meaning", file, r.line, len(r.cells)))
			continue
		}
		name := unquote(r.cells[0])
		if prev, dup := seen[name]; dup {
			problems = append(problems, fmt.Sprintf("%s:%d: input %q is listed twice (also line %d)", file, r.line, name, prev))
			continue
		}
		seen[name] = r.line
		def, ok := declared[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s:%d: input %q is documented but action.yml does not declare it", file, r.line, name))
			continue
		}
		if got := documentedDefault(name, r.cells[1]); got != def {
			problems = append(problems, fmt.Sprintf("%s:%d: input %q: documented default %q, action.yml says %q", file, r.line, name, got, def))
		}
	}
	for _, name := range sortedKeys(declared) {
		if _, ok := seen[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s: input %q (action.yml) is missing from the Inputs table", file, name))
		}
	}
	return problems
}

// checkOutputTable compares the rows of an outputs table with action.yml.
func checkOutputTable(file string, rows []tableRow, declared map[string]bool) []string {
	var problems []string
	seen := map[string]bool{}
	for _, r := range rows {
		if len(r.cells) == 0 {
			continue
		}
		name := unquote(r.cells[0])
		if seen[name] {
			problems = append(problems, fmt.Sprintf("%s:%d: output %q is listed twice", file, r.line, name))
		}
		seen[name] = true
		if !declared[name] {
			problems = append(problems, fmt.Sprintf("%s:%d: output %q is documented but action.yml does not declare it", file, r.line, name))
		}
	}
	for _, name := range sortedKeys(declared) {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("%s: output %q (action.yml) is missing from the Outputs table", file, name))
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func report(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

// Every input and output of action.yml is in the Inputs and Outputs tables
// of README.md and docs/action.md, no table names one action.yml lacks, and
// the documented defaults are action.yml's.
func TestActionInputsAndOutputsDocumented(t *testing.T) {
	root := repoRoot(t)
	a := loadAction(t, root)
	for _, file := range []string{"README.md", "docs/action.md"} {
		t.Run(file, func(t *testing.T) {
			d := parseMarkdown(readFile(t, root, file))
			in := firstTable(d.section("Inputs"))
			if len(in) == 0 {
				t.Fatalf("%s: no table under a heading \"Inputs\"", file)
			}
			report(t, checkInputTable(file, in, a.declared()))
			out := firstTable(d.section("Outputs"))
			if len(out) == 0 {
				t.Fatalf("%s: no table under a heading \"Outputs\"", file)
			}
			report(t, checkOutputTable(file, out, a.outputNames()))
		})
	}
}

// The container action's image file exists.
func TestActionImageExists(t *testing.T) {
	root := repoRoot(t)
	a := loadAction(t, root)
	if a.Runs.Using != "docker" {
		t.Skipf("action.yml runs.using is %q, not docker", a.Runs.Using)
	}
	img := a.Runs.Image
	if strings.HasPrefix(img, "docker://") {
		return
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(img))); err != nil {
		t.Errorf("action.yml runs.image %q: %v", img, err)
	}
}

// The table checks themselves catch every kind of mismatch.
func TestCheckInputTable(t *testing.T) {
	declared := map[string]string{"github-token": "${{ github.token }}", "base": "", "scale": "2.0", "pr-number": ""}
	row := func(n int, cells ...string) tableRow { return tableRow{n, cells} }
	good := []tableRow{
		row(1, "`github-token`", "`${{ github.token }}`", "token"),
		row(2, "`base`", "default branch", "branch"),
		row(3, "`scale`", "`2.0`", "normaliser"),
		row(4, "`pr-number`", "", "a PR"),
	}
	if p := checkInputTable("x.md", good, declared); len(p) != 0 {
		t.Errorf("a correct table gave problems: %q", p)
	}
	tests := []struct {
		name string
		rows []tableRow
		want string
	}{
		{"missing input", good[:3], `input "pr-number" (action.yml) is missing`},
		{"unknown input", append(append([]tableRow{}, good...), row(5, "`colour`", "", "?")), `input "colour" is documented but action.yml does not declare it`},
		{"wrong default", []tableRow{good[0], good[1], row(3, "`scale`", "`3.0`", "x"), good[3]}, `documented default "3.0", action.yml says "2.0"`},
		{"default branch only for base", []tableRow{good[0], good[1], good[2], row(4, "`pr-number`", "default branch", "x")}, `documented default "default branch"`},
		{"duplicate", append(append([]tableRow{}, good...), row(6, "`base`", "", "again")), `listed twice`},
		{"short row", append(append([]tableRow{}, good...), row(7, "`base`")), `has 1 cells`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := checkInputTable("x.md", tt.rows, declared)
			if !containsProblem(p, tt.want) {
				t.Errorf("problems %q do not mention %q", p, tt.want)
			}
		})
	}
	out := checkOutputTable("x.md", []tableRow{row(1, "`result`"), row(2, "`extra`")}, map[string]bool{"result": true, "delta": true})
	for _, want := range []string{`output "extra" is documented but`, `output "delta" (action.yml) is missing`} {
		if !containsProblem(out, want) {
			t.Errorf("output problems %q do not mention %q", out, want)
		}
	}
}

func containsProblem(problems []string, want string) bool {
	for _, p := range problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}
