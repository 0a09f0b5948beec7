package ghfake_test

import (
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/ghfake/ghschema"
)

// TestMain holds every response the fake serves in its own tests to GitHub's REST API
// description.
func TestMain(m *testing.M) { ghschema.Main(m) }
