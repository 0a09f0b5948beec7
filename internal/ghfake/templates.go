package ghfake

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
)

// The payloads are built from real GitHub responses copied from the shared
// fixtures (testdata/api, see testdata/SOURCES.md): the fake overrides only
// the fields a scenario declares, so every other field keeps its real shape.
//
//go:embed testdata/api testdata/checkruns
var fixtures embed.FS

// Fixture returns the bytes of an embedded fixture, e.g.
// "api/openapi/get-ref.git-ref.json" or
// "checkruns/enricomi/pytest-junit.fail.checkrun.json".
func Fixture(path string) ([]byte, error) {
	b, err := fixtures.ReadFile("testdata/" + path)
	if err != nil {
		return nil, fmt.Errorf("ghfake: fixture %s: %w", path, err)
	}
	return b, nil
}

// template loads a fixture as a JSON object, optionally descending into
// keys (arrays by index via "0").
func template(path string, keys ...string) map[string]any {
	b, err := Fixture(path)
	if err != nil {
		panic(err) // embedded at build time; missing means a broken build
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(fmt.Sprintf("ghfake: fixture %s: %v", path, err))
	}
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			v = x[i]
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		panic(fmt.Sprintf("ghfake: fixture %s%v is not an object", path, keys))
	}
	return m
}

// set assigns a dotted path inside a JSON object, creating objects on the way.
func set(m map[string]any, path string, val any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = val
}

var (
	tplPull = func() map[string]any {
		return template("api/derived/pull-request-merged.from-reallyfastci-webhook.json")
	}
	tplCheckRun = func() map[string]any {
		return template("api/openapi/list-check-runs-for-ref.check-run-paginated.json", "check_runs", "0")
	}
	tplWorkflowRun = func() map[string]any {
		return template("api/openapi/list-workflow-runs.workflow-run-paginated.json", "workflow_runs", "0")
	}
	tplArtifact = func() map[string]any {
		return template("api/openapi/list-workflow-run-artifacts.artifact-paginated.json", "artifacts", "0")
	}
	tplGitCommit = func() map[string]any { return template("api/openapi/get-commit.git-commit-2.json") }
)
