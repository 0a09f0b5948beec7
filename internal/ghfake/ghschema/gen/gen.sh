#!/bin/sh
# Regenerates, from npm packages (needs node and npm; go test needs neither):
#  - ../testdata/openapi-subset.json from @octokit/openapi (MIT), the packaged form of
#    github/rest-api-description: the operations the product calls, with their schemas;
#  - internal/action/testdata/events/*.octokit-webhooks-examples.json (and SOURCES.md there)
#    from @octokit/webhooks-examples (MIT): real webhook payloads for the event tests.
#   sh internal/ghfake/ghschema/gen/gen.sh [openapi version] [webhooks-examples version]
set -eu
openapi="${1:-23.0.2}"
webhooks="${2:-7.6.1}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
npm install --silent --no-save --prefix "$tmp" "@octokit/openapi@$openapi" "@octokit/webhooks-examples@$webhooks" >/dev/null
node "$here/gen.js" "$tmp/node_modules/@octokit/openapi"
node "$here/webhooks.js" "$tmp/node_modules/@octokit/webhooks-examples"
