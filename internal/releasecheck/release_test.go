package releasecheck

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const releaseYML = ".github/workflows/release.yml"

// metaTag is one line of docker/metadata-action's `tags` input: type=semver,pattern=...,prefix=...
type metaTag map[string]string

func parseMetaTags(input string) ([]metaTag, error) {
	var out []metaTag
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		tag := metaTag{}
		for _, field := range strings.Split(line, ",") {
			k, v, ok := strings.Cut(field, "=")
			if !ok {
				return nil, fmt.Errorf("tags line %q: field %q is not key=value", line, field)
			}
			tag[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if tag["type"] == "" {
			return nil, fmt.Errorf("tags line %q has no type", line)
		}
		out = append(out, tag)
	}
	return out, nil
}

var reSemver = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$`)

// semverTags returns the image tags that the type=semver lines produce for a pushed git tag,
// the way docker/metadata-action v5 does (src/meta.ts procSemver): a tag that is not semver
// produces nothing; for a pre-release every pattern except {{raw}} is replaced by {{version}};
// prefix and suffix are added afterwards.
func semverTags(tags []metaTag, gitTag string) ([]string, error) {
	m := reSemver.FindStringSubmatch(gitTag)
	if m == nil {
		return nil, nil
	}
	version := m[1] + "." + m[2] + "." + m[3]
	if m[4] != "" {
		version += "-" + m[4]
	}
	vars := map[string]string{"raw": gitTag, "version": version, "major": m[1], "minor": m[2], "patch": m[3]}
	var out []string
	for _, tag := range tags {
		if tag["type"] != "semver" {
			continue
		}
		if _, ok := tag["value"]; ok {
			return nil, fmt.Errorf("type=semver with value=: the check only models tags from the pushed git tag")
		}
		pattern := tag["pattern"]
		if m[4] != "" && pattern != "{{raw}}" {
			pattern = "{{version}}"
		}
		var err error
		val := regexp.MustCompile(`\{\{\s*([a-z_]+)\s*\}\}`).ReplaceAllStringFunc(pattern, func(s string) string {
			name := strings.Trim(s, "{} ")
			v, ok := vars[name]
			if !ok {
				err = fmt.Errorf("pattern %q: {{%s}} is not modelled by this check", tag["pattern"], name)
			}
			return v
		})
		if err != nil {
			return nil, err
		}
		val = tag["prefix"] + val + tag["suffix"]
		if !slices.Contains(out, val) {
			out = append(out, val)
		}
	}
	return out, nil
}

// metadataStep returns the docker/metadata-action step and the name of its job (the image job).
func metadataStep(t *testing.T, w workflow) (step, string) {
	t.Helper()
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "docker/metadata-action@") {
				return s, name
			}
		}
	}
	t.Fatalf("%s: no docker/metadata-action step", releaseYML)
	return step{}, ""
}

// The README's docker://ghcr.io/darwin-memo/darwin-memo-action:v1 is an image tag the release
// workflow publishes; `type=semver,pattern={{major}}` published 1, not v1 ("manifest unknown").
func TestReleaseImageTags(t *testing.T) {
	w := loadWorkflow(t, releaseYML)
	meta, _ := metadataStep(t, w)
	tags, err := parseMetaTags(meta.With["tags"])
	if err != nil {
		t.Fatalf("%s: %v", releaseYML, err)
	}
	for _, tc := range []struct {
		gitTag string
		want   []string
	}{
		{"v1.2.3", []string{"v1.2.3", "v1.2", "v1"}},
		{"v0.9.0", []string{"v0.9.0", "v0.9", "v0"}},
		{"v1.3.0-rc.1", []string{"v1.3.0-rc.1"}}, // a pre-release moves no v1 or v1.3
	} {
		got, err := semverTags(tags, tc.gitTag)
		if err != nil {
			t.Fatalf("%s: %v", releaseYML, err)
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: git tag %s publishes image tags %q, want %q", releaseYML, tc.gitTag, got, want)
		}
	}

	// Every docker:// image the README shows is one the workflow publishes.
	module := strings.TrimPrefix(strings.Fields(strings.SplitN(readFile(t, "go.mod"), "\n", 2)[0])[1], "github.com/")
	if want := "ghcr.io/${{ github.repository }}"; strings.TrimSpace(meta.With["images"]) != want {
		t.Errorf("%s: metadata-action images = %q, want %q", releaseYML, meta.With["images"], want)
	}
	// docker://IMAGE:TAG, or IMAGE:TAG@sha256:... as a release commit's action.yml names it.
	reRef := regexp.MustCompile(`docker://(ghcr\.io/[^\s:@]+):([^\s@` + "`" + `]+)`)
	var refs [][]string
	for _, doc := range []string{"README.md", "docs/action.md"} {
		for _, m := range reRef.FindAllStringSubmatch(readFile(t, doc), -1) {
			refs = append(refs, append([]string{doc}, m[1:]...))
		}
	}
	if len(refs) == 0 {
		t.Fatal("README.md and docs/action.md name no docker://ghcr.io image")
	}
	for _, r := range refs {
		doc, image, tag := r[0], r[1], r[2]
		if image != "ghcr.io/"+module {
			t.Errorf("%s: docker://%s:%s, but the release publishes ghcr.io/%s", doc, image, tag, module)
			continue
		}
		release := tag
		for strings.Count(release, ".") < 2 {
			release += ".0"
		}
		got, err := semverTags(tags, release)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, tag) {
			t.Errorf("%s: docker://%s:%s, but releasing %s publishes only %q", doc, image, tag, release, got)
		}
	}
}

func TestSemverTagsModel(t *testing.T) {
	tags, err := parseMetaTags("type=semver,pattern={{major}}\ntype=semver,pattern=v{{major}}.{{minor}}\ntype=semver,pattern={{raw}}\ntype=sha\n")
	if err != nil {
		t.Fatal(err)
	}
	got, err := semverTags(tags, "v1.2.3")
	if err != nil || strings.Join(got, ",") != "1,v1.2,v1.2.3" {
		t.Errorf("semverTags(v1.2.3) = %q, %v; want 1, v1.2, v1.2.3", got, err)
	}
	got, _ = semverTags(tags, "v2.0.0-beta.1")
	if strings.Join(got, ",") != "2.0.0-beta.1,v2.0.0-beta.1" {
		t.Errorf("semverTags(v2.0.0-beta.1) = %q", got)
	}
	if got, _ := semverTags(tags, "v1"); got != nil {
		t.Errorf("semverTags(v1) = %q, want nothing (not semver)", got)
	}
	if _, err := parseMetaTags("type=semver,pattern"); err == nil {
		t.Error("parseMetaTags accepted a field without =")
	}
}

// globRegexp translates a GitHub Actions filter pattern (*, **, +, ?, [...]) to a regexp.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '+' || c == '?':
			b.WriteByte(c)
		case c == '[':
			j := strings.IndexByte(pattern[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("pattern %q: unclosed [", pattern)
			}
			b.WriteString(pattern[i : i+j+1])
			i += j
		case c == '\\' && i+1 < len(pattern):
			b.WriteString(regexp.QuoteMeta(pattern[i+1 : i+2]))
			i++
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func matchesAny(t *testing.T, patterns []string, s string) bool {
	t.Helper()
	for _, p := range patterns {
		re, err := globRegexp(p)
		if err != nil {
			t.Fatalf("%s: %v", releaseYML, err)
		}
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Releases start on vX.Y.Z tags only, so the major tag vX the workflow moves never starts it.
func TestReleaseTagFilter(t *testing.T) {
	w := loadWorkflow(t, releaseYML)
	pats := w.On.Push.Tags
	for _, tag := range []string{"v1.2.3", "v10.0.1", "v1.3.0-rc.1"} {
		if !matchesAny(t, pats, tag) {
			t.Errorf("%s: on.push.tags %q does not match the release tag %s", releaseYML, pats, tag)
		}
	}
	for _, tag := range []string{"v1", "v1.2", "latest"} {
		if matchesAny(t, pats, tag) {
			t.Errorf("%s: on.push.tags %q matches %s: moving the major tag would start another release", releaseYML, pats, tag)
		}
	}
}

// The major tag of the action repository (uses: ...@v1) moves to a release after its image and
// binaries are published and its release commit is made, never for a pre-release, with write
// access.
func TestReleaseMovesMajorTag(t *testing.T) {
	w := loadWorkflow(t, releaseYML)
	_, imageName := metadataStep(t, w)
	var binName, moverName string
	var moverStep step
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, ".ci/release-binaries.sh") {
				binName = name
			}
			if strings.Contains(s.Run, `git tag --force "$major"`) && strings.Contains(s.Run, "git push --force") {
				moverName, moverStep = name, s
			}
		}
	}
	if imageName == "" || binName == "" || moverName == "" {
		t.Fatalf("%s: want an image job, a binaries job (.ci/release-binaries.sh) and a job that moves the major tag (git tag --force, git push --force); found %q, %q, %q", releaseYML, imageName, binName, moverName)
	}
	mover := w.Jobs[moverName]
	for _, need := range []string{imageName, binName} {
		if !slices.Contains(mover.needs(), need) {
			t.Errorf("%s: job %s moves the major tag without needs: %s", releaseYML, moverName, need)
		}
	}
	if mover.Permissions["contents"] != "write" {
		t.Errorf("%s: job %s needs permissions contents: write to push a tag", releaseYML, moverName)
	}
	if !strings.Contains(mover.If+moverStep.If, "!contains(github.ref_name, '-')") {
		t.Errorf("%s: job %s must skip pre-releases when it moves the major tag (if: ... !contains(github.ref_name, '-'))", releaseYML, moverName)
	}
	// The major tag moves to the release commit (HEAD after the rewrite), not to the tagged
	// source commit, whose action.yml would build the Dockerfile on every run.
	if !strings.Contains(moverStep.Run, `git tag --force "$major" HEAD`) || strings.Contains(moverStep.Run, `"$major" "$GITHUB_SHA"`) {
		t.Errorf("%s: job %s must move the major tag to the release commit (git tag --force \"$major\" HEAD)", releaseYML, moverName)
	}
	if mover.Steps[len(mover.Steps)-1].Run != moverStep.Run || !strings.Contains(strings.Join(stepRuns(mover), "\n"), ".ci/release-action.sh") {
		t.Errorf("%s: job %s must move the major tag last, after the release commit (.ci/release-action.sh)", releaseYML, moverName)
	}
	if w.Jobs[binName].Permissions["contents"] != "write" {
		t.Errorf("%s: job %s needs permissions contents: write to create the GitHub release", releaseYML, binName)
	}
}

// The release binaries cover linux, darwin and windows on amd64 and arm64, with checksums, and
// their -X flags set internal/version's variables.
func TestReleaseBinaries(t *testing.T) {
	const script = ".ci/release-binaries.sh"
	src := readFile(t, script)
	m := regexp.MustCompile(`TARGETS:=([^}"]*)`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("%s: no default TARGETS (: \"${TARGETS:=...}\")", script)
	}
	targets := strings.Fields(m[1])
	for _, os := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			if !slices.Contains(targets, os+"/"+arch) {
				t.Errorf("%s: default TARGETS %q lack %s/%s", script, targets, os, arch)
			}
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "sha256sum", "SHA256SUMS"} {
		if !strings.Contains(src, want) {
			t.Errorf("%s: no %s", script, want)
		}
	}
	pkg := regexp.MustCompile(`(?m)^pkg=(\S+)$`).FindStringSubmatch(src)
	if pkg == nil {
		t.Fatalf("%s: no pkg= line naming the package of the -X flags", script)
	}
	checkVersionVars(t, script, strings.ReplaceAll(src, "${pkg}", pkg[1]))
}

func stepRuns(j job) []string {
	var out []string
	for _, s := range j.Steps {
		out = append(out, s.Run)
	}
	return out
}
