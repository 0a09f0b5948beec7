// Package deps pins the project's required modules in go.mod until every one of them is imported
// by real code. It is removed once that is so.
package deps

import (
	_ "github.com/google/go-github/v62/github"
	_ "github.com/ollama/ollama/api"
	_ "github.com/sethvargo/go-githubactions"
	_ "golang.org/x/oauth2"
)
