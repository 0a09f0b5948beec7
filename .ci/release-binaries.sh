#!/usr/bin/env bash
# Builds the release's static CLI binaries and their SHA256SUMS:
#   .ci/release-binaries.sh OUTDIR VERSION [COMMIT]
# writes OUTDIR/darwin-memo_VERSION_OS_ARCH[.exe] for every target in TARGETS (default: linux,
# darwin and windows on amd64 and arm64) and OUTDIR/SHA256SUMS. The release workflow runs it on
# version tags and CI runs it on every push, so a target that stops building fails before a tag.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 OUTDIR VERSION [COMMIT]" >&2
  exit 2
fi
out=$1
version=$2
commit=${3:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
: "${TARGETS:=linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}"

pkg=github.com/darwin-memo/darwin-memo-action/internal/version
ldflags="-s -w -X ${pkg}.Version=${version} -X ${pkg}.Commit=${commit}"

mkdir -p "$out"
names=()
for target in $TARGETS; do
  os=${target%/*}
  arch=${target#*/}
  name="darwin-memo_${version}_${os}_${arch}"
  if [ "$os" = windows ]; then name="${name}.exe"; fi
  echo "--- ${name}"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags="$ldflags" -o "${out}/${name}" ./cmd/darwin-memo
  names+=("$name")
done
(cd "$out" && sha256sum "${names[@]}" >SHA256SUMS && cat SHA256SUMS)
