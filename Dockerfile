# syntax=docker/dockerfile:1
# Build: a static binary, no cgo.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/darwin-memo ./cmd/darwin-memo

# Run: distroless static carries CA certificates and nothing else. No WORKDIR (the runner
# mounts the workspace and sets the working directory) and no USER (the runner expects root
# so GITHUB_WORKSPACE and the file-command files are writable).
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/darwin-memo /darwin-memo
ENTRYPOINT ["/darwin-memo", "action"]
