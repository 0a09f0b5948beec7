#!/bin/sh
# Regenerates ../testdata/openapi-subset.json from the npm package @octokit/openapi (MIT), the
# packaged form of github/rest-api-description. Needs node and npm; go test does not.
#   sh internal/ghfake/ghschema/gen/gen.sh [version]     (default: the version pinned below)
set -eu
version="${1:-23.0.2}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm install --silent --no-save --prefix "$tmp" "@octokit/openapi@$version" >/dev/null
node "$here/gen.js" "$tmp/node_modules/@octokit/openapi"
