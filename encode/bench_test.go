package encode

import (
	"context"
	"testing"
)

// BenchmarkEncodeDeterministic measures one no-LLM encoding of the
// fixture PR (documents, deterministic lessons, every rule, dedup).
func BenchmarkEncodeDeterministic(b *testing.B) {
	pr := &PR{Number: 1, AuthorAssociation: "OWNER", Body: "Lesson: Which port? Port 8080 is used by lib/config.go.",
		Files:   []File{{Path: "lib/config.go", Status: "modified", Additions: 3, Patch: "+x := 1"}},
		Commits: []Commit{{SHA: "0123456789abcdef", Message: "fix\n\nLesson: Which file holds ports? lib/config.go holds the port table."}},
		CIFixed: []CIFailure{{Test: "lib.TestPort", Message: "port 0 accepted"}},
	}
	enc := New(nil, WithRand(zeroReader{}))
	for i := 0; i < b.N; i++ {
		if _, err := enc.Encode(context.Background(), pr, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
