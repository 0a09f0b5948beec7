// Package ghschema holds internal/ghfake to GitHub's published REST API description: a
// committed subset of it (testdata/openapi-subset.json, regenerated from the npm package
// @octokit/openapi by gen/gen.sh, which records the version) and a strict validator.
//
// It is test support: only _test.go files import it, and a test checks that the product
// binary does not link it.
//
// Validation is strict the way the real API is: a property the schema does not define is an
// error, a missing required property is an error, a wrong type, an enum value outside the
// list or a malformed date-time is an error. $ref, allOf (properties of every branch count
// as defined), anyOf, oneOf (at least one branch must match: GitHub's oneOf branches
// overlap, so "exactly one" would reject real responses) and nullable are resolved.
package ghschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"mime"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

//go:embed testdata/openapi-subset.json
var subset []byte

// Schema is an OpenAPI 3.0 schema object, limited to the keywords the subset keeps.
type Schema struct {
	Ref                  string             `json:"$ref"`
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Nullable             bool               `json:"nullable"`
	Enum                 []any              `json:"enum"`
	Required             []string           `json:"required"`
	Properties           map[string]*Schema `json:"properties"`
	Items                *Schema            `json:"items"`
	AllOf                []*Schema          `json:"allOf"`
	AnyOf                []*Schema          `json:"anyOf"`
	OneOf                []*Schema          `json:"oneOf"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
}

// Response is one described status of an operation.
type Response struct {
	Schema       *Schema  `json:"schema"`
	ContentTypes []string `json:"contentTypes"`
}

// Operation is one method on one path template.
type Operation struct {
	ID        string              `json:"operationId"`
	Responses map[string]Response `json:"responses"`
}

// Spec is the loaded subset.
type Spec struct {
	Source     string                           `json:"x-source"`
	Paths      map[string]map[string]*Operation `json:"paths"`
	Components struct {
		Schemas map[string]*Schema `json:"schemas"`
	} `json:"components"`
}

var (
	loadOnce sync.Once
	loaded   *Spec
	loadErr  error
)

// Load returns the committed subset of GitHub's description.
func Load() (*Spec, error) {
	loadOnce.Do(func() {
		loaded = &Spec{}
		if err := json.Unmarshal(subset, loaded); err != nil {
			loadErr = fmt.Errorf("ghschema: testdata/openapi-subset.json: %w", err)
		}
	})
	return loaded, loadErr
}

// Match finds the operation for a request: the path template whose segments match (a
// parameter matches one segment, except a last {path} or {ref}, which may hold slashes as file
// paths and ref names do). Among several, the one with most literal segments
// wins.
func (s *Spec) Match(method, path string) (string, *Operation, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLit := "", -1
	var bestOp *Operation
	for tmpl, ops := range s.Paths {
		op := ops[strings.ToLower(method)]
		if op == nil {
			continue
		}
		ts := strings.Split(strings.Trim(tmpl, "/"), "/")
		lit, ok := matchSegs(ts, segs)
		if ok && lit > bestLit {
			best, bestLit, bestOp = tmpl, lit, op
		}
	}
	return best, bestOp, bestOp != nil
}

func matchSegs(ts, segs []string) (int, bool) {
	lit := 0
	for i, t := range ts {
		param := strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")
		if i >= len(segs) {
			return 0, false
		}
		if !param {
			if t != segs[i] {
				return 0, false
			}
			lit++
			continue
		}
		if segs[i] == "" {
			return 0, false
		}
		if i == len(ts)-1 && (t == "{path}" || t == "{ref}") {
			return lit, true // a file path or a ref name may hold slashes
		}
	}
	return lit, len(ts) == len(segs)
}

// ValidateExchange checks one exchange: the request must be a described operation, and a
// response whose status the operation describes with a JSON schema must validate strictly.
// A 2xx status the operation does not describe is an error; undescribed error statuses
// (injected faults such as 502 or 429) are not checked.
func (s *Spec) ValidateExchange(x ghfake.Exchange) []string {
	tmpl, op, ok := s.Match(x.Method, x.Path)
	if !ok {
		return []string{fmt.Sprintf("%s %s is not an operation in GitHub's REST API description", x.Method, x.Path)}
	}
	where := fmt.Sprintf("%s %s %d", x.Method, tmpl, x.Status)
	resp, described := op.Responses[strconv.Itoa(x.Status)]
	if !described {
		if x.Status >= 200 && x.Status < 300 {
			return []string{where + ": status not described for the operation"}
		}
		return nil
	}
	ct, _, _ := mime.ParseMediaType(x.Header.Get("Content-Type"))
	if resp.Schema == nil || len(x.Body) == 0 || ct != "application/json" {
		if resp.Schema != nil && ct != "application/json" && x.Status < 300 && !rawMediaType(ct) {
			return []string{fmt.Sprintf("%s: content type %q, want application/json", where, ct)}
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(x.Body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{fmt.Sprintf("%s: body is not JSON: %v", where, err)}
	}
	var errs []string
	s.validate(resp.Schema, v, "$", true, &errs)
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		e = where + ": " + indexRE.ReplaceAllString(e, "[]")
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// rawMediaType reports the custom media types GitHub serves raw bytes for (blobs, contents).
func rawMediaType(ct string) bool {
	return strings.HasPrefix(ct, "application/vnd.github") && strings.HasSuffix(ct, ".raw")
}

// Validate checks v against sch strictly; the errors name the JSON path.
func (s *Spec) Validate(sch *Schema, v any) []string {
	var errs []string
	s.validate(sch, v, "$", true, &errs)
	return errs
}

func (s *Spec) resolve(sch *Schema) *Schema {
	for sch != nil && sch.Ref != "" {
		name := strings.TrimPrefix(sch.Ref, "#/components/schemas/")
		next, ok := s.Components.Schemas[name]
		if !ok {
			panic("ghschema: unresolved " + sch.Ref)
		}
		sch = next
	}
	return sch
}

// defined collects the properties an object schema defines, through $ref and allOf, and
// whether it allows any other property.
func (s *Spec) defined(sch *Schema, props map[string]bool) (open bool) {
	sch = s.resolve(sch)
	for k := range sch.Properties {
		props[k] = true
	}
	if ap := strings.TrimSpace(string(sch.AdditionalProperties)); ap != "" && ap != "false" {
		open = true
	}
	for _, b := range sch.AllOf {
		if s.defined(b, props) {
			open = true
		}
	}
	if len(sch.Properties) == 0 && len(sch.AllOf) == 0 && sch.AdditionalProperties == nil {
		open = true // a free-form object, or one whose anyOf/oneOf branches say what it holds
	}
	return open
}

func (s *Spec) validate(sch *Schema, v any, at string, strict bool, errs *[]string) {
	sch = s.resolve(sch)
	if sch == nil {
		return
	}
	fail := func(format string, args ...any) { *errs = append(*errs, at+": "+fmt.Sprintf(format, args...)) }
	if v == nil {
		if sch.Nullable || (sch.Type == "" && len(sch.AllOf)+len(sch.AnyOf)+len(sch.OneOf) == 0) {
			return
		}
		if len(sch.AnyOf)+len(sch.OneOf) > 0 && s.anyBranch(sch, v, at) {
			return
		}
		fail("null, but the schema is not nullable")
		return
	}
	for _, b := range sch.AllOf {
		s.validate(b, v, at, false, errs)
	}
	if branches := append(append([]*Schema{}, sch.AnyOf...), sch.OneOf...); len(branches) > 0 {
		if !s.anyBranch(sch, v, at) {
			var first []string
			s.validate(branches[0], v, at, strict, &first)
			fail("matches none of the %d anyOf/oneOf branches (first branch: %s)", len(branches), strings.Join(first, "; "))
		}
	}
	switch sch.Type {
	case "":
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			fail("%s, want object", kind(v))
			return
		}
		s.validateObject(sch, m, at, strict, errs)
		return
	case "array":
		a, ok := v.([]any)
		if !ok {
			fail("%s, want array", kind(v))
			return
		}
		if sch.Items != nil {
			for i, e := range a {
				s.validate(sch.Items, e, fmt.Sprintf("%s[%d]", at, i), true, errs)
			}
		}
		return
	case "string":
		str, ok := v.(string)
		if !ok {
			fail("%s, want string", kind(v))
			return
		}
		if sch.Format == "date-time" {
			if _, err := time.Parse(time.RFC3339, str); err != nil {
				fail("%q is not a date-time", str)
			}
		}
	case "integer":
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			fail("%s %v, want integer", kind(v), v)
			return
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			fail("%s, want number", kind(v))
			return
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			fail("%s, want boolean", kind(v))
			return
		}
	default:
		fail("schema type %q not supported by ghschema", sch.Type)
	}
	if len(sch.Enum) > 0 {
		for _, e := range sch.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				return
			}
		}
		fail("%v is not one of %v", v, sch.Enum)
	}
	if m, ok := v.(map[string]any); ok && sch.Type == "" && strict && len(sch.AllOf) > 0 {
		s.validateObject(sch, m, at, strict, errs)
	}
}

func (s *Spec) anyBranch(sch *Schema, v any, at string) bool {
	for _, b := range append(append([]*Schema{}, sch.AnyOf...), sch.OneOf...) {
		var e []string
		s.validate(b, v, at, true, &e)
		if len(e) == 0 {
			return true
		}
	}
	return false
}

func (s *Spec) validateObject(sch *Schema, m map[string]any, at string, strict bool, errs *[]string) {
	for _, r := range sch.Required {
		if _, ok := m[r]; !ok {
			*errs = append(*errs, fmt.Sprintf("%s: required property %q missing", at, r))
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p, ok := sch.Properties[k]; ok {
			s.validate(p, m[k], at+"."+k, true, errs)
		}
	}
	var extra *Schema
	if ap := strings.TrimSpace(string(sch.AdditionalProperties)); ap != "" && ap != "true" && ap != "false" {
		extra = &Schema{}
		if err := json.Unmarshal(sch.AdditionalProperties, extra); err != nil {
			panic(err)
		}
	}
	if !strict {
		return
	}
	props := map[string]bool{}
	open := s.defined(sch, props)
	for _, k := range keys {
		if props[k] {
			continue
		}
		if extra != nil {
			s.validate(extra, m[k], at+"."+k, true, errs)
			continue
		}
		if !open {
			*errs = append(*errs, fmt.Sprintf("%s: property %q is not in the schema", at, k))
		}
	}
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
