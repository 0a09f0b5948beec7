package ghschema

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake"
)

// Checker validates every exchange the fakes of a test binary serve.
type Checker struct {
	spec *Spec

	mu         sync.Mutex
	violations map[string]int // message → occurrences
	operations map[string]int // "METHOD template" → exchanges
}

// Install makes every fake hand its exchanges to a new Checker.
func Install() (*Checker, error) {
	spec, err := Load()
	if err != nil {
		return nil, err
	}
	c := &Checker{spec: spec, violations: map[string]int{}, operations: map[string]int{}}
	ghfake.Observe(c.check)
	return c, nil
}

func (c *Checker) check(x ghfake.Exchange) {
	errs := c.spec.ValidateExchange(x)
	tmpl, _, ok := c.spec.Match(x.Method, x.Path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		c.operations[x.Method+" "+tmpl]++
	}
	for _, e := range errs {
		c.violations[e]++
	}
}

// Violations returns the distinct violations seen, sorted.
func (c *Checker) Violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.violations))
	for v, n := range c.violations {
		if n > 1 {
			v = fmt.Sprintf("%s (x%d)", v, n)
		}
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// Operations returns how many exchanges each described operation had.
func (c *Checker) Operations() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.operations))
	for k, v := range c.operations {
		out[k] = v
	}
	return out
}

// Main is a TestMain body: it runs the package's tests with every fake exchange validated
// against GitHub's description, and fails the binary listing the violations.
func Main(m *testing.M) {
	c, err := Install()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	ghfake.Observe(nil)
	if v := c.Violations(); len(v) > 0 {
		const show = 300
		fmt.Fprintf(os.Stderr, "ghschema: %d response(s) or request(s) of internal/ghfake disagree with GitHub's REST API description (%s):\n", len(v), c.spec.Source)
		for i, e := range v {
			if i == show {
				fmt.Fprintf(os.Stderr, "  ... and %d more\n", len(v)-show)
				break
			}
			fmt.Fprintln(os.Stderr, "  "+e)
		}
		fmt.Fprintln(os.Stderr, "FAIL: fix the fake (internal/ghfake) or, for a new endpoint, add it to internal/ghfake/ghschema/gen/gen.js and run gen.sh")
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Strings is a helper for tests: the violations joined one a line.
func (c *Checker) String() string { return strings.Join(c.Violations(), "\n") }
