package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A mistyped command names the one the person meant: swapped letters, a wrong case, a letter
// missing or extra.
func TestTypoSuggestsTheCommand(t *testing.T) {
	for typo, want := range map[string]string{"decied": "decide", "Decide": "decide", "rendr": "render", "qeury": "query", "doctr": "doctor"} {
		var errb bytes.Buffer
		code := run(context.Background(), []string{typo}, &IO{Stdout: &bytes.Buffer{}, Stderr: &errb})
		if code != exitUsage || !strings.Contains(errb.String(), `did you mean "`+want+`"`) {
			t.Errorf("%s: exit %d, %q; want a suggestion of %s", typo, code, errb.String(), want)
		}
	}
}
