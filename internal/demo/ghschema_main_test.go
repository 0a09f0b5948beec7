package demo

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake/ghschema"
)

// TestMain holds every response the fake GitHub serves in this package's tests to GitHub's
// REST API description, and every request the product makes to a described operation.
func TestMain(m *testing.M) { ghschema.Main(m) }
