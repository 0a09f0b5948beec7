package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The command reference of docs/cli.md is generated from the commands' own flag sets, so it
// cannot drift from them: each command is run with -h, and the flag set it makes is listed.
const (
	referenceBegin = "<!-- BEGIN command reference: generated from the flag sets by `go test ./cmd/darwin-memo -run TestCLIReference -update`; do not edit -->"
	referenceEnd   = "<!-- END command reference -->"
	cliDoc         = "../../docs/cli.md"
)

// reference renders the command reference.
func reference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, c := range commands() {
		var fs *flag.FlagSet
		var stderr bytes.Buffer
		sio := &IO{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr,
			seeFlags: func(name string, f *flag.FlagSet) {
				if name == c.name {
					fs = f
				}
			}}
		if code := run(context.Background(), []string{c.name, "-h"}, sio); code != exitOK || fs == nil {
			t.Fatalf("%s -h: exit %d, flag set seen %v: %s", c.name, code, fs != nil, stderr.String())
		}
		usage, _, _ := strings.Cut(strings.TrimPrefix(stderr.String(), "Usage: "), "\n\n")
		fmt.Fprintf(&b, "### `%s`\n\n%s.\n\n", c.name, strings.ToUpper(c.summary[:1])+c.summary[1:])
		for _, l := range strings.Split(usage, "\n") {
			fmt.Fprintf(&b, "    %s\n", strings.TrimSpace(l))
		}
		b.WriteString("\n")
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			if n == 0 {
				b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
			}
			n++
			name := "--" + f.Name
			if len(f.Name) == 1 {
				name = "-" + f.Name
			}
			def := ""
			if f.DefValue != "" {
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, def, strings.ReplaceAll(f.Usage, "|", `\|`))
		})
		if n == 0 {
			b.WriteString("No flags.\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// Issue 23 §11: docs/cli.md's command reference is what the flag sets give; -update rewrites it.
func TestCLIReference(t *testing.T) {
	data, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok1 := strings.Cut(doc, referenceBegin+"\n")
	current, after, ok2 := strings.Cut(rest, referenceEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers\n%s\n...\n%s", cliDoc, referenceBegin, referenceEnd)
	}
	want := "\n" + reference(t) + "\n"
	if current == want {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(filepath.Clean(cliDoc), []byte(before+referenceBegin+"\n"+want+referenceEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's command reference differs from the commands' flag sets; run go test ./cmd/darwin-memo -run TestCLIReference -update", cliDoc)
}

// Issue 23 §11: the Go version the install instructions ask for is the one go.mod requires.
func TestInstallDocsNameGoModsVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	checked := 0
	for _, doc := range []string{"../../docs/agents.md", "../../README.md", "../../docs/cli.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range regexp.MustCompile(`Go (\d+\.\d+) or newer`).FindAllSubmatch(data, -1) {
			checked++
			if string(v[1]) != string(m[1]) {
				t.Errorf("%s asks for Go %s or newer; go.mod requires %s", doc, v[1], m[1])
			}
		}
	}
	if checked == 0 {
		t.Error("no install instruction names a Go version")
	}
}
