package releasecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const releaseScript = ".ci/release-action.sh"

// actionMeta is action.yml as a generic document.
func actionMeta(t *testing.T, name, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(src), &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func runsOf(m map[string]any) map[string]any {
	r, _ := m["runs"].(map[string]any)
	return r
}

// Main's action.yml builds the image from the Dockerfile, so a branch or commit ref runs what it
// contains; only release commits name a published image.
func TestMainActionBuildsFromDockerfile(t *testing.T) {
	runs := runsOf(actionMeta(t, "action.yml", readFile(t, "action.yml")))
	if runs["using"] != "docker" || runs["image"] != "Dockerfile" {
		t.Errorf("action.yml: runs is %v, want using: docker and image: Dockerfile on main (the release workflow pins the published image in the release commit)", runs)
	}
}

// releaseCommitStep returns the release workflow's step that runs the rewrite script, and its job.
func releaseCommitStep(t *testing.T, w workflow) (step, string) {
	t.Helper()
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, releaseScript) {
				return s, name
			}
		}
	}
	t.Fatalf("%s: no step runs %s", releaseYML, releaseScript)
	return step{}, ""
}

// imageBuild returns the image job's docker/build-push-action step.
func imageBuild(t *testing.T, w workflow, imageJob string) step {
	t.Helper()
	for _, s := range w.Jobs[imageJob].Steps {
		if strings.HasPrefix(s.Uses, "docker/build-push-action@") {
			return s
		}
	}
	t.Fatalf("%s: job %s has no docker/build-push-action step", releaseYML, imageJob)
	return step{}
}

var reImageAssign = regexp.MustCompile(`(?m)^\s*image="[^"\n]*"\s*$`)

// The release commit's action.yml names the image the same run pushed, by digest: the rewrite
// step takes the digest the image job's build step output, builds the reference the way the
// workflow writes it, and the script, run here on a copy of action.yml, changes runs.image and
// nothing else.
func TestReleaseCommitPinsPushedImage(t *testing.T) {
	w := loadWorkflow(t, releaseYML)
	rewrite, commitJob := releaseCommitStep(t, w)
	_, imageJob := metadataStep(t, w)
	build := imageBuild(t, w, imageJob)

	// The digest flows build step -> image job output -> the rewrite step.
	if build.ID == "" {
		t.Fatalf("%s: the docker/build-push-action step has no id, so its digest cannot be read", releaseYML)
	}
	if got, want := strings.TrimSpace(w.Jobs[imageJob].Outputs["digest"]), "${{ steps."+build.ID+".outputs.digest }}"; got != want {
		t.Errorf("%s: job %s outputs.digest = %q, want %q", releaseYML, imageJob, got, want)
	}
	if !slices.Contains(w.Jobs[commitJob].needs(), imageJob) {
		t.Errorf("%s: job %s rewrites action.yml without needs: %s", releaseYML, commitJob, imageJob)
	}
	if got, want := strings.TrimSpace(rewrite.Env["DIGEST"]), "${{ needs."+imageJob+".outputs.digest }}"; got != want {
		t.Errorf("%s: the rewrite step's env DIGEST = %q, want %q", releaseYML, got, want)
	}
	if w.Jobs[commitJob].Permissions["contents"] != "write" {
		t.Errorf("%s: job %s needs permissions contents: write to push the release commit's tags", releaseYML, commitJob)
	}
	if !strings.Contains(w.Jobs[commitJob].If, "github.ref_type == 'tag'") {
		t.Errorf("%s: job %s must run for version tags only (if: github.ref_type == 'tag')", releaseYML, commitJob)
	}
	for _, want := range []string{releaseScript + ` action.yml "$image"`, `git tag --force "$GITHUB_REF_NAME" HEAD`, `git push --force origin "refs/tags/${GITHUB_REF_NAME}"`} {
		if !strings.Contains(rewrite.Run, want) {
			t.Errorf("%s: the rewrite step does not run %s", releaseYML, want)
		}
	}

	// The reference the step passes, evaluated the way the runner's bash would.
	assign := reImageAssign.FindString(rewrite.Run)
	if assign == "" {
		t.Fatalf("%s: the rewrite step sets no image=\"...\"", releaseYML)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run", releaseScript)
	}
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	cmd := exec.Command(bash, "-c", assign+`; printf %s "$image"`)
	cmd.Env = append(os.Environ(), "GITHUB_REPOSITORY=Darwin-Memo/darwin-memo-action", "GITHUB_REF_NAME=v1.2.3", "DIGEST="+digest)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %s: %v", releaseYML, assign, err)
	}
	image := string(out)
	if want := "ghcr.io/darwin-memo/darwin-memo-action:v1.2.3@" + digest; image != want {
		t.Errorf("%s: the release commit would name %q, want the pushed image %q (lower-case repository, version tag, digest)", releaseYML, image, want)
	}

	// Run the script on a copy of action.yml.
	orig := readFile(t, "action.yml")
	copyPath := filepath.Join(t.TempDir(), "action.yml")
	if err := os.WriteFile(copyPath, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repoRoot(t), filepath.FromSlash(releaseScript))
	if out, err := exec.Command(bash, script, copyPath, image).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", releaseScript, image, err, out)
	}
	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	released := string(b)
	got, want := actionMeta(t, "the release's action.yml", released), actionMeta(t, "action.yml", orig)
	runsOf(want)["image"] = "docker://" + image
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s changed more than runs.image:\n%s", releaseScript, released)
	}
	ol, rl := strings.Split(orig, "\n"), strings.Split(released, "\n")
	if len(ol) != len(rl) {
		t.Fatalf("%s: %d lines became %d", releaseScript, len(ol), len(rl))
	}
	var changed []string
	for i := range ol {
		if ol[i] != rl[i] {
			changed = append(changed, rl[i])
		}
	}
	if len(changed) != 1 || changed[0] != "  image: docker://"+image {
		t.Errorf("%s: changed lines %q, want only the image line", releaseScript, changed)
	}

	// A second rewrite (of a release commit) and a reference without a digest are refused,
	// and leave the file as it was.
	for _, bad := range []struct{ file, image string }{
		{copyPath, image},
		{filepath.Join(t.TempDir(), "main.yml"), "ghcr.io/darwin-memo/darwin-memo-action:v1.2.3"},
		{filepath.Join(t.TempDir(), "main.yml"), "ghcr.io/darwin-memo/darwin-memo-action@" + digest},
	} {
		before := released
		if bad.file != copyPath {
			before = orig
			if err := os.WriteFile(bad.file, []byte(orig), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := exec.Command(bash, script, bad.file, bad.image).CombinedOutput(); err == nil {
			t.Errorf("%s accepted %s on %s:\n%s", releaseScript, bad.image, bad.file, out)
		}
		if b, _ := os.ReadFile(bad.file); string(b) != before {
			t.Errorf("%s: a refused rewrite changed %s", releaseScript, bad.file)
		}
	}
}

// Build provenance: the image (by the digest pushed, attestation pushed to the registry too) and
// the release binaries are attested, with the permissions the attestation needs.
func TestReleaseAttestsProvenance(t *testing.T) {
	w := loadWorkflow(t, releaseYML)
	meta, imageJob := metadataStep(t, w)
	build := imageBuild(t, w, imageJob)
	attest := func(jobName string) (step, bool) {
		for _, s := range w.Jobs[jobName].Steps {
			if strings.HasPrefix(s.Uses, "actions/attest-build-provenance@") {
				return s, true
			}
		}
		return step{}, false
	}
	needPerms := func(jobName string, perms ...string) {
		for _, p := range perms {
			if w.Jobs[jobName].Permissions[p] != "write" {
				t.Errorf("%s: job %s needs permissions %s: write to attest", releaseYML, jobName, p)
			}
		}
	}
	a, ok := attest(imageJob)
	if !ok {
		t.Errorf("%s: job %s pushes the image without actions/attest-build-provenance", releaseYML, imageJob)
	} else {
		if a.With["subject-name"] != strings.TrimSpace(meta.With["images"]) {
			t.Errorf("%s: attestation subject-name %q, want the image pushed, %q", releaseYML, a.With["subject-name"], meta.With["images"])
		}
		if want := "${{ steps." + build.ID + ".outputs.digest }}"; a.With["subject-digest"] != want {
			t.Errorf("%s: attestation subject-digest %q, want %q", releaseYML, a.With["subject-digest"], want)
		}
		if a.With["push-to-registry"] != "true" {
			t.Errorf("%s: the image's attestation is not pushed to the registry (push-to-registry: true)", releaseYML)
		}
	}
	needPerms(imageJob, "id-token", "attestations", "packages")

	var binJob string
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, ".ci/release-binaries.sh") {
				binJob = name
			}
		}
	}
	if b, ok := attest(binJob); !ok {
		t.Errorf("%s: job %s publishes the binaries without actions/attest-build-provenance", releaseYML, binJob)
	} else if p := b.With["subject-path"]; !strings.HasPrefix(p, "dist/darwin-memo_") {
		t.Errorf("%s: the binaries' attestation subject-path %q does not name dist/darwin-memo_* (the release script's output)", releaseYML, p)
	}
	needPerms(binJob, "id-token", "attestations")
}

// The README and docs/action.md tell the truth about both paths: `uses: ...@v1` runs the
// prebuilt, attested image of the release commit; a branch or commit ref builds the Dockerfile;
// and both say how to verify the attestations.
func TestDocsDescribeBothImagePaths(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/action.md"} {
		src := readFile(t, doc)
		for _, want := range []string{
			"uses: darwin-memo/darwin-memo-action@v1",
			"gh attestation verify oci://ghcr.io/darwin-memo/darwin-memo-action:",
			"--owner darwin-memo",
			"image: Dockerfile",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("%s: does not say %q", doc, want)
			}
		}
		if strings.Contains(src, "builds the image on every run") {
			t.Errorf("%s: still says @v1 builds the image on every run; the release commit runs the prebuilt image", doc)
		}
	}
	if !regexp.MustCompile(`gh attestation verify darwin-memo_\S+ --owner darwin-memo`).MatchString(readFile(t, "README.md")) {
		t.Error("README.md: does not say how to verify a release binary (gh attestation verify darwin-memo_... --owner darwin-memo)")
	}
}

var reUsesLine = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+)(.*)$`)

// The release jobs hold write tokens and sign attestations: every action they run is pinned by
// full commit SHA, with the version it stands for in a comment (for people and Dependabot).
func TestReleaseActionsPinnedBySHA(t *testing.T) {
	src := readFile(t, releaseYML)
	pinned := regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$`)
	n := 0
	for _, m := range reUsesLine.FindAllStringSubmatch(src, -1) {
		n++
		if !pinned.MatchString(m[1]) {
			t.Errorf("%s: uses: %s is not pinned by a full commit SHA", releaseYML, m[1])
		} else if !regexp.MustCompile(`^\s+# v\d+(\.\d+){0,2}\s*$`).MatchString(m[2]) {
			t.Errorf("%s: uses: %s has no # vX.Y.Z comment naming the version", releaseYML, m[1])
		}
	}
	if n == 0 {
		t.Fatalf("%s: no uses: lines", releaseYML)
	}
}
