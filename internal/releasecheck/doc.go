// Package releasecheck holds tests, and nothing else, that keep the release and CI
// configuration honest where no local run can: GitHub's runners, GHCR and a Docker engine are
// not here, so the tests read the files and check what they would do.
//
//   - .github/workflows/release.yml: the image tags docker/metadata-action derives from a tag
//     vX.Y.Z include every docker://...:TAG the README tells users to pull (v1), pre-releases
//     move nothing, the tag filter never matches the moving major tag, the major tag moves only
//     after the image and binaries of the release are published, and the binaries cover
//     linux, darwin and windows on amd64 and arm64 with checksums.
//   - the release commit: main's action.yml builds the Dockerfile; the release workflow passes
//     the digest its build step pushed to .ci/release-action.sh, which (run here on a copy of
//     action.yml) changes runs.image to docker://ghcr.io/OWNER/REPO:vX.Y.Z@sha256:... and
//     nothing else; the major tag moves to that commit; the image and the binaries get build
//     provenance (actions/attest-build-provenance) with the permissions it needs; every action of
//     the release workflow is pinned by commit SHA; README.md and docs/action.md describe both
//     paths (prebuilt @v1, Dockerfile on a branch) and how to verify the attestations.
//   - Dockerfile: no "# syntax=" directive (every action run would pull a frontend image), and
//     every stage that runs commands runs on $BUILDPLATFORM and cross-compiles with
//     TARGETOS/TARGETARCH, so the multi-platform build needs no emulation; every FROM also
//     expands to a platform the classic builder (no BuildKit, no $BUILDPLATFORM) parses as the
//     machine's own.
//   - the -ldflags -X paths of the Dockerfile and the release script name the variables of
//     internal/version.
//   - .github/workflows/ci.yml and .ci/run both cross-build for windows and darwin, and .ci/run
//     installs shellcheck before actionlint (which skips shellcheck silently without it).
//
// A failure names the file, the item and what to change.
package releasecheck
