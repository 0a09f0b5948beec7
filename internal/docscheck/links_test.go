package docscheck

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// checkLinks resolves the relative link targets of one Markdown file (slash
// path file, content src) against the repository through stat and anchorsOf
// and returns the broken ones.
func checkLinks(file, src string, stat func(rel string) (isDir bool, err error), anchorsOf func(rel string) map[string]bool) []string {
	var problems []string
	d := parseMarkdown(src)
	for _, l := range d.links() {
		target := l.target
		if u, err := url.Parse(target); err == nil && u.Scheme != "" {
			continue // http, https, mailto: not checked offline
		}
		if strings.HasPrefix(target, "//") {
			continue
		}
		rel, frag, _ := strings.Cut(target, "#")
		if p, err := url.PathUnescape(rel); err == nil {
			rel = p
		}
		dest := file
		if rel != "" {
			if strings.HasPrefix(rel, "/") {
				dest = path.Clean(strings.TrimPrefix(rel, "/"))
			} else {
				dest = path.Clean(path.Join(path.Dir(file), rel))
			}
			if dest == ".." || strings.HasPrefix(dest, "../") {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q leaves the repository", file, l.line, target))
				continue
			}
			isDir, err := stat(dest)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s does not exist", file, l.line, target, dest))
				continue
			}
			if isDir && frag != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: anchor on a directory", file, l.line, target))
				continue
			}
		}
		if frag == "" || !strings.HasSuffix(strings.ToLower(dest), ".md") {
			continue
		}
		if !anchorsOf(dest)[strings.ToLower(frag)] {
			problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s has no heading with anchor #%s", file, l.line, target, dest, frag))
		}
	}
	return problems
}

// Every relative link in README.md and docs/*.md points at a file that
// exists, and every #anchor into a Markdown file at one of its headings.
func TestRelativeLinks(t *testing.T) {
	root := repoRoot(t)
	stat := func(rel string) (bool, error) {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return false, err
		}
		return fi.IsDir(), nil
	}
	cache := map[string]map[string]bool{}
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := cache[rel]; ok {
			return a
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil
		}
		a := parseMarkdown(string(data)).anchors()
		cache[rel] = a
		return a
	}
	checked := 0
	for _, file := range markdownFiles(t, root) {
		src := readFile(t, root, file)
		checked += len(parseMarkdown(src).links())
		report(t, checkLinks(file, src, stat, anchorsOf))
	}
	if checked == 0 {
		t.Fatal("found no links at all; the link scanner is broken")
	}
}

// The link checker finds what it must and ignores links inside code.
func TestCheckLinks(t *testing.T) {
	files := map[string]bool{"README.md": false, "docs/a.md": false, "docs": true, "docs/img.svg": false}
	stat := func(rel string) (bool, error) {
		dir, ok := files[rel]
		if !ok {
			return false, os.ErrNotExist
		}
		return dir, nil
	}
	anchorsOf := func(rel string) map[string]bool {
		if rel == "docs/a.md" {
			return parseMarkdown("# Title\n\n## Selection quality (generated)\n\n## Same\n\n## Same\n").anchors()
		}
		return parseMarkdown("# Read me\n").anchors()
	}
	tests := []struct {
		name, file, src, want string
	}{
		{"ok", "README.md", "see [a](docs/a.md), [img](docs/img.svg), [web](https://example.com/x), [top](#read-me)", ""},
		{"ok anchors", "docs/b.md", "[s](a.md#selection-quality-generated) [d](a.md#same-1) [up](../README.md)", ""},
		{"missing file", "README.md", "see [b](docs/b.md)", `docs/b.md does not exist`},
		{"missing anchor", "docs/b.md", "[s](a.md#nope)", `has no heading with anchor #nope`},
		{"missing same-file anchor", "README.md", "[s](#nope)", `README.md has no heading with anchor #nope`},
		{"outside the repository", "docs/b.md", "[x](../../etc/passwd)", `leaves the repository`},
		{"image", "README.md", "![plot](docs/missing.svg)", `docs/missing.svg does not exist`},
		{"code span is not a link", "README.md", "markup such as `](`, `[x](nowhere.md)`", ""},
		{"fenced code is not a link", "README.md", "```md\n[x](nowhere.md)\n```\n", ""},
		{"indented fence in a list", "README.md", "* item\n\n  ```\n  [x](nowhere.md)\n  ```\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := checkLinks(tt.file, tt.src, stat, anchorsOf)
			if tt.want == "" {
				if len(p) != 0 {
					t.Errorf("unexpected problems %q", p)
				}
				return
			}
			if !containsProblem(p, tt.want) {
				t.Errorf("problems %q do not mention %q", p, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Selection quality (generated)":   "selection-quality-generated",
		"1. Which two commits":            "1-which-two-commits",
		"The `darwin-memo` action":        "the-darwin-memo-action",
		"Threat model, plainly":           "threat-model-plainly",
		"Before: what it was merged onto": "before-what-it-was-merged-onto",
		"[Link](x.md) text":               "link-text",
	}
	for in, want := range tests {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
