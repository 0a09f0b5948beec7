package ghschema

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

func spec(t *testing.T) *Spec {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidateStrict(t *testing.T) {
	s := spec(t)
	s.Components.Schemas["t-inner"] = &Schema{Type: "object", Required: []string{"a"}, Properties: map[string]*Schema{"a": {Type: "integer"}}}
	s.Components.Schemas["t-more"] = &Schema{Type: "object", Properties: map[string]*Schema{"b": {Type: "string", Nullable: true}}}
	ref := func(n string) *Schema { return &Schema{Ref: "#/components/schemas/" + n} }
	tests := []struct {
		name    string
		schema  *Schema
		value   string
		wantErr string // "" means valid
	}{
		{"valid object", ref("t-inner"), `{"a":1}`, ""},
		{"extra property", ref("t-inner"), `{"a":1,"z":2}`, `property "z" is not in the schema`},
		{"missing required", ref("t-inner"), `{}`, `required property "a" missing`},
		{"wrong type", ref("t-inner"), `{"a":"1"}`, "want integer"},
		{"not an integer", ref("t-inner"), `{"a":1.5}`, "want integer"},
		{"null not nullable", ref("t-inner"), `null`, "not nullable"},
		{"nullable", ref("t-more"), `{"b":null}`, ""},
		{"allOf: properties of both branches defined", &Schema{AllOf: []*Schema{ref("t-inner"), ref("t-more")}}, `{"a":1,"b":"x"}`, ""},
		{"allOf: extra property", &Schema{AllOf: []*Schema{ref("t-inner"), ref("t-more")}}, `{"a":1,"c":"x"}`, `property "c" is not in the schema`},
		{"allOf: required of a branch", &Schema{AllOf: []*Schema{ref("t-inner"), ref("t-more")}}, `{"b":"x"}`, `required property "a" missing`},
		{"anyOf: one branch matches", &Schema{AnyOf: []*Schema{ref("t-inner"), {Type: "string"}}}, `"s"`, ""},
		{"oneOf: no branch matches", &Schema{OneOf: []*Schema{ref("t-inner"), {Type: "string"}}}, `{"a":1,"q":1}`, "matches none"},
		{"array items strict", &Schema{Type: "array", Items: ref("t-inner")}, `[{"a":1},{"a":1,"x":0}]`, `$[1]: property "x"`},
		{"enum", &Schema{Type: "string", Enum: []any{"open", "closed"}}, `"merged"`, "not one of"},
		{"date-time", &Schema{Type: "string", Format: "date-time"}, `"yesterday"`, "not a date-time"},
		{"additionalProperties schema", &Schema{Type: "object", AdditionalProperties: json.RawMessage(`{"type":"integer"}`)}, `{"x":"no"}`, "want integer"},
		{"real pull-request-simple has no merged", &Schema{Type: "array", Items: ref("pull-request-simple")}, `[{"merged":true}]`, `property "merged" is not in the schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tt.value))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			errs := strings.Join(s.Validate(tt.schema, v), "\n")
			if tt.wantErr == "" && errs != "" {
				t.Fatalf("want valid, got:\n%s", errs)
			}
			if tt.wantErr != "" && !strings.Contains(errs, tt.wantErr) {
				t.Fatalf("want an error containing %q, got:\n%s", tt.wantErr, errs)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	s := spec(t)
	tests := []struct{ method, path, want string }{
		{"GET", "/repos/o/r/pulls", "/repos/{owner}/{repo}/pulls"},
		{"GET", "/repos/o/r/pulls/7", "/repos/{owner}/{repo}/pulls/{pull_number}"},
		{"GET", "/repos/o/r/git/ref/heads/darwin-memo/lessons", "/repos/{owner}/{repo}/git/ref/{ref}"},
		{"PATCH", "/repos/o/r/git/refs/heads/a/b", "/repos/{owner}/{repo}/git/refs/{ref}"},
		{"GET", "/repos/o/r/contents/.darwin-memo/lessons.json", "/repos/{owner}/{repo}/contents/{path}"},
		{"GET", "/repos/o/r/compare/main...abc", "/repos/{owner}/{repo}/compare/{basehead}"},
		{"GET", "/repos/o/r/actions/artifacts/5/zip", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"},
		{"GET", "/repos/o/r/pull/7", ""},                   // a typo
		{"DELETE", "/repos/o/r/pulls/7", ""},               // GitHub has no such operation
		{"GET", "/repos/o/r/branches/main/protection", ""}, // nor this one (not in the subset)
	}
	for _, tt := range tests {
		got, _, ok := s.Match(tt.method, tt.path)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Match(%s %s) = %q, %v; want %q", tt.method, tt.path, got, ok, tt.want)
		}
	}
}

func TestValidateExchange(t *testing.T) {
	s := spec(t)
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		name string
		x    ghfake.Exchange
		want string
	}{
		{"undescribed operation", ghfake.Exchange{Method: "GET", Path: "/repos/o/r/pull/1", Status: 200, Header: h, Body: []byte(`{}`)}, "not an operation"},
		{"undescribed success status", ghfake.Exchange{Method: "GET", Path: "/repos/o/r/pulls/1", Status: 201, Header: h, Body: []byte(`{}`)}, "status not described"},
		{"injected 502 is not checked", ghfake.Exchange{Method: "GET", Path: "/repos/o/r/pulls/1", Status: 502, Header: h, Body: []byte(`{"message":"x"}`)}, ""},
		{"list item with merged", ghfake.Exchange{Method: "GET", Path: "/repos/o/r/pulls", Status: 200, Header: h, Body: []byte(`[{"merged":true}]`)}, `"merged" is not in the schema`},
		{"raw blob", ghfake.Exchange{Method: "GET", Path: "/repos/o/r/git/blobs/abc", Status: 200, Header: http.Header{"Content-Type": {"application/vnd.github.raw"}}, Body: []byte("raw")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(s.ValidateExchange(tt.x), "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Every go-github method the product calls is, by go-github's own //meta:operation
// annotation, an operation in the committed description: a call GitHub does not have, or
// one the subset lacks (add it to gen/gen.js and run gen.sh), fails here.
func TestProductOperationsAreDescribed(t *testing.T) {
	s := spec(t)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/go-github/v62").Output()
	if err != nil {
		t.Skipf("go list: %v (the go command is needed to find go-github's sources)", err)
	}
	ghDir := filepath.Join(strings.TrimSpace(string(out)), "github")
	meta := goGitHubOperations(t, ghDir)
	services := map[string]string{"PullRequests": "PullRequestsService", "Git": "GitService", "Repositories": "RepositoriesService",
		"Checks": "ChecksService", "Actions": "ActionsService", "Issues": "IssuesService", "Users": "UsersService", "RateLimit": "RateLimitService"}
	root := filepath.Join("..", "..", "..")
	calls := map[string]string{} // "Service.Method" → first file
	for _, dir := range []string{"settle", "encode", "lessons", "internal/action", "internal/botpr", "internal/ghapi", "internal/report", "cmd/darwin-memo"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				inner, ok := sel.X.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if svc, ok := services[inner.Sel.Name]; ok {
					if _, seen := calls[svc+"."+sel.Sel.Name]; !seen {
						calls[svc+"."+sel.Sel.Name] = f
					}
				}
				return true
			})
		}
	}
	if len(calls) < 20 {
		t.Fatalf("found only %d go-github calls in the product: is the scan broken? %v", len(calls), calls)
	}
	var names []string
	for c := range calls {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		ops, ok := meta[c]
		if !ok {
			t.Errorf("%s (called in %s) has no //meta:operation in go-github", c, calls[c])
			continue
		}
		// A method may serve several operations (ListComments: of one pull request, or of
		// the repository when the number is 0): one must be described; the exact path of each
		// request is checked at run time by Main.
		described := false
		for _, op := range ops {
			method, tmpl, _ := strings.Cut(op, " ")
			described = described || s.Paths[tmpl][strings.ToLower(method)] != nil
		}
		if !described {
			t.Errorf("%s (called in %s) is %s, which the description subset does not have (a call GitHub lacks, or add it to gen/gen.js)", c, calls[c], strings.Join(ops, " or "))
		}
	}
	t.Logf("%d go-github methods called by the product, all described", len(names))
}

var metaRE = regexp.MustCompile(`(?m)((?://meta:operation [A-Z]+ \S+\n)+)func \(s \*(\w+)\) (\w+)\(`)

func goGitHubOperations(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("go-github sources in %s: %v", dir, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metaRE.FindAllStringSubmatch(string(b), -1) {
			var ops []string
			for _, l := range strings.Split(strings.TrimSpace(m[1]), "\n") {
				ops = append(ops, strings.TrimPrefix(l, "//meta:operation "))
			}
			out[m[2]+"."+m[3]] = ops
		}
	}
	return out
}

// The validator is test support: the product binary must not link it.
func TestNotLinkedIntoProduct(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../../cmd/darwin-memo").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if strings.Contains(string(out), "internal/ghfake/ghschema") {
		t.Fatal("cmd/darwin-memo links internal/ghfake/ghschema; import it only from _test.go files")
	}
}

// The hook is wired through both fakes: a route GitHub does not have, served by the CI fake, is
// reported, and the Git fake's exchanges behind a World are seen and validated.
func TestCheckerSeesTheFakes(t *testing.T) {
	c, err := Install()
	if err != nil {
		t.Fatal(err)
	}
	defer ghfake.Observe(nil)
	git := ghfake.NewGitRepo("o", "r", "main", map[string]string{"a.txt": "a\n"})
	w := ghfake.NewWorld(git, ghfake.Repo{})
	w.CI.HandleFunc("GET /repos/{owner}/{repo}/pull/{number}", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, `{}`)
	})
	for _, p := range []string{"/api/v3/repos/o/r", "/api/v3/repos/o/r/pull/7"} {
		resp, err := http.Get(w.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	w.Close() // waits for the handlers, which hand their exchange over as they return
	if c.Operations()["GET /repos/{owner}/{repo}"] != 1 {
		t.Errorf("the Git fake's GET /repos/{owner}/{repo} was not seen: %v", c.Operations())
	}
	if v := c.String(); v != "GET /repos/o/r/pull/7 is not an operation in GitHub's REST API description" {
		t.Errorf("want only the CI fake's typo route reported, got:\n%s", v)
	}
}
