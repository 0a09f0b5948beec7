package docscheck

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ourAction reports whether a step's uses: names this action (the
// repository, at any ref or path, or its published image).
func ourAction(uses string) bool {
	u := strings.ToLower(strings.TrimSpace(uses))
	return strings.HasPrefix(u, "darwin-memo/darwin-memo-action@") ||
		strings.HasPrefix(u, "darwin-memo/darwin-memo-action/") ||
		strings.HasPrefix(u, "docker://ghcr.io/darwin-memo/darwin-memo-action") ||
		u == "./" || u == "."
}

var reInputsExpr = regexp.MustCompile(`\$\{\{[^}]*?\binputs\.([A-Za-z0-9_-]+)`)

// checkYAMLSnippet parses one fenced YAML block and checks that every step
// using this action passes only inputs action.yml declares, and that a
// workflow's ${{ inputs.X }} expressions name workflow_dispatch inputs it
// declares.
//
// Problems name file:line in the Markdown file, the block's body starting on
// the line after its opening fence at fenceLine.
func checkYAMLSnippet(file string, fenceLine int, body string, declared map[string]string) []string {
	at := func(yamlLine int) string { return fmt.Sprintf("%s:%d", file, fenceLine+yamlLine) }
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(body), &root); err != nil {
		return []string{fmt.Sprintf("%s: YAML snippet does not parse: %v", at(0), err)}
	}
	var problems []string
	walk(&root, func(m *yaml.Node) {
		uses := mapValue(m, "uses")
		if uses == nil || uses.Kind != yaml.ScalarNode || !ourAction(uses.Value) {
			return
		}
		with := mapValue(m, "with")
		if with == nil {
			return
		}
		if with.Kind != yaml.MappingNode {
			problems = append(problems, fmt.Sprintf("%s: with: of %s is not a mapping", at(with.Line), uses.Value))
			return
		}
		for i := 0; i+1 < len(with.Content); i += 2 {
			k := with.Content[i]
			if _, ok := declared[k.Value]; !ok {
				problems = append(problems, fmt.Sprintf("%s: step %s passes input %q, which action.yml does not declare", at(k.Line), uses.Value, k.Value))
			}
		}
	})
	// A whole workflow: its ${{ inputs.X }} must be workflow_dispatch inputs.
	if top := document(&root); top != nil && mapValue(top, "jobs") != nil {
		dispatch := map[string]bool{}
		if on := onKey(top); on != nil && on.Kind == yaml.MappingNode {
			if wd := mapValue(on, "workflow_dispatch"); wd != nil {
				if in := mapValue(wd, "inputs"); in != nil && in.Kind == yaml.MappingNode {
					for i := 0; i+1 < len(in.Content); i += 2 {
						dispatch[in.Content[i].Value] = true
					}
				}
			}
		}
		walk(&root, func(n *yaml.Node) {
			for i := 1; i < len(n.Content); i += 2 {
				v := n.Content[i]
				if v.Kind != yaml.ScalarNode {
					continue
				}
				for _, m := range reInputsExpr.FindAllStringSubmatch(v.Value, -1) {
					if !dispatch[m[1]] {
						problems = append(problems, fmt.Sprintf("%s: ${{ inputs.%s }} but the workflow declares no workflow_dispatch input %q", at(v.Line), m[1], m[1]))
					}
				}
			}
		})
	}
	return problems
}

// walk calls f on every mapping node under n.
func walk(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		f(n)
	}
	for _, c := range n.Content {
		walk(c, f)
	}
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// onKey returns a workflow's on: value (YAML 1.1 readers see on as true;
// yaml.v3 keeps the text "on").
func onKey(top *yaml.Node) *yaml.Node {
	if v := mapValue(top, "on"); v != nil {
		return v
	}
	return mapValue(top, "true")
}

// document returns the top-level mapping of a parsed document, or nil.
func document(root *yaml.Node) *yaml.Node {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		return root.Content[0]
	}
	return nil
}

// The YAML snippets in README.md and docs/*.md parse, and the steps that use
// this action pass only inputs action.yml declares.
func TestYAMLSnippets(t *testing.T) {
	root := repoRoot(t)
	declared := loadAction(t, root).declared()
	ours := 0
	for _, file := range markdownFiles(t, root) {
		for _, b := range parseMarkdown(readFile(t, root, file)).blocks {
			if b.lang != "yaml" && b.lang != "yml" {
				continue
			}
			report(t, checkYAMLSnippet(file, b.line, b.body, declared))
			if strings.Contains(b.body, "darwin-memo/darwin-memo-action") {
				ours++
			}
		}
	}
	if ours == 0 {
		t.Fatal("no YAML snippet in the docs uses the action; the snippet scanner is broken")
	}
}

func TestCheckYAMLSnippet(t *testing.T) {
	declared := map[string]string{"pr-number": "", "wait-for-ci": "0", "github-token": ""}
	workflow := `on:
  workflow_dispatch:
    inputs:
      pr-number:
        required: false
jobs:
  settle:
    steps:
      - uses: darwin-memo/darwin-memo-action@v1
        with:
          pr-number: ${{ inputs.pr-number }}
          %s
      - uses: actions/upload-artifact@v4
        with:
          name: not-ours
`
	tests := []struct {
		name, body, want string
	}{
		{"ok", fmt.Sprintf(workflow, "wait-for-ci: 5m"), ""},
		{"unknown input", fmt.Sprintf(workflow, "wait_for_ci: 5m"), `x.md:22: step darwin-memo/darwin-memo-action@v1 passes input "wait_for_ci", which action.yml does not declare`},
		{"undeclared dispatch input", fmt.Sprintf(workflow, "github-token: ${{ inputs.token }}"), `declares no workflow_dispatch input "token"`},
		{"bad yaml", "jobs:\n  a: [1,\n", `YAML snippet does not parse`},
		{"fragment, docker image", "      - uses: docker://ghcr.io/darwin-memo/darwin-memo-action:v1\n        with:\n          github-token: x\n          llm: none\n", `passes input "llm"`},
		{"fragment ok", "      - uses: docker://ghcr.io/darwin-memo/darwin-memo-action:v1\n        with:\n          github-token: x\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := checkYAMLSnippet("x.md", 10, tt.body, declared)
			if tt.want == "" {
				if len(p) != 0 {
					t.Errorf("unexpected problems %q", p)
				}
				return
			}
			if !containsProblem(p, tt.want) {
				sort.Strings(p)
				t.Errorf("problems %q do not mention %q", p, tt.want)
			}
		})
	}
}
