#!/usr/bin/env bash
# Points a release's action.yml at the image the release workflow just pushed:
#   .ci/release-action.sh ACTION_YML IMAGE
# IMAGE is ghcr.io/OWNER/REPO:vX.Y.Z@sha256:<64 hex> (the version tag for people, the digest for
# the runner, which pulls by digest). The line `  image: Dockerfile` under `runs:` becomes
# `  image: docker://IMAGE`; nothing else in the file changes. It refuses an IMAGE that is not
# pinned by digest and a file whose runs.image is not Dockerfile (main's action.yml), so a
# release commit cannot be made from a release commit. The release workflow runs it on a copy
# of the tagged commit; internal/releasecheck runs it on a copy of action.yml.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 ACTION_YML IMAGE (ghcr.io/OWNER/REPO:vX.Y.Z@sha256:DIGEST)" >&2
  exit 2
fi
file=$1
image=$2
if ! [[ $image =~ ^ghcr\.io/[a-z0-9._-]+/[a-z0-9._-]+:v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?@sha256:[0-9a-f]{64}$ ]]; then
  echo "$0: image ${image@Q} is not ghcr.io/OWNER/REPO:vX.Y.Z@sha256:<64 lowercase hex>" >&2
  exit 2
fi

# Rewrite the one `image:` line of the top-level `runs:` block, and count what was found.
tmp=$(mktemp "${file}.XXXXXX")
trap 'rm -f "$tmp"' EXIT
awk -v ref="docker://${image}" '
  /^[^[:space:]#]/ { inRuns = ($0 ~ /^runs:[[:space:]]*$/) }
  inRuns && /^[[:space:]]+image:/ {
    found++
    if ($0 !~ /^  image: Dockerfile[[:space:]]*$/) { bad = $0; print; next }
    print "  image: " ref
    next
  }
  { print }
  END {
    if (found != 1) { printf "runs.image appears %d times under runs:, want once\n", found > "/dev/stderr"; exit 1 }
    if (bad != "") { printf "runs.image is not Dockerfile: %s\n", bad > "/dev/stderr"; exit 1 }
  }
' "$file" >"$tmp" || { echo "$0: ${file} not rewritten" >&2; exit 1; }
# Keep the file's mode; replace it only when the rewrite succeeded.
cat "$tmp" >"$file"
echo "${file}: runs.image = docker://${image}"
