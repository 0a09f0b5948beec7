# Build: a static binary, no cgo. The build stage runs on the builder's own platform and
# cross-compiles for the target (TARGETOS/TARGETARCH), so the release's multi-platform image
# (linux/amd64, linux/arm64) needs no emulation; the run stage has no RUN step at all.
# No "# syntax=" line: it would make every action run pull a BuildKit frontend image from
# Docker Hub for nothing this file uses.
# BuildKit sets BUILDPLATFORM (and TARGETOS/TARGETARCH); the classic builder (DOCKER_BUILDKIT=0,
# older engines on self-hosted runners and GHES) sets none of them, and "--platform=" with an
# empty value fails there. "linux" alone names the daemon's own architecture, and an empty
# GOARCH builds for the toolchain's, so the same file builds natively without BuildKit.
FROM --platform=${BUILDPLATFORM:-linux} golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
# Set by the release workflow; empty for the runner's build of `uses: darwin-memo/darwin-memo-action@v1`.
ARG VERSION=""
ARG COMMIT=""
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath \
      -ldflags="-s -w -X github.com/darwin-memo/darwin-memo-action/internal/version.Version=${VERSION} -X github.com/darwin-memo/darwin-memo-action/internal/version.Commit=${COMMIT}" \
      -o /out/darwin-memo ./cmd/darwin-memo

# Run: distroless static carries CA certificates and nothing else. No WORKDIR (the runner
# mounts the workspace and sets the working directory) and no USER (the runner expects root
# so GITHUB_WORKSPACE and the file-command files are writable).
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/darwin-memo /darwin-memo
ENTRYPOINT ["/darwin-memo", "action"]
