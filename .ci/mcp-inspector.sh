#!/usr/bin/env bash
# Checks `darwin-memo mcp` with an independent MCP client: the MCP Inspector's CLI mode
# (npm @modelcontextprotocol/inspector), what people use to check a server. It builds the
# CLI, makes a small store with it, and asserts on the Inspector's JSON for tools/list, each
# tool, an error path and the lessons.md resource.
#
# Environment: DARWIN_MEMO_INSPECTOR_CACHE (default $HOME/.cache/darwin-memo-inspector).
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION=0.17.2
cache="${DARWIN_MEMO_INSPECTOR_CACHE:-$HOME/.cache/darwin-memo-inspector}"
inspector="$cache/node_modules/.bin/mcp-inspector"
if [ ! -x "$inspector" ] || ! grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$cache/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null; then
  mkdir -p "$cache"
  # The package declares node >= 22.7.5 for its web UI; its CLI mode runs on node 20.
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/darwin-memo" ./cmd/darwin-memo
store="$tmp/lessons.json"
id=$("$tmp/darwin-memo" add --store "$store" "How do I run the integration tests?" "make itest; they need port 8080 free")

inspect() { timeout 60 "$inspector" --cli "$tmp/darwin-memo" mcp --store "$store" "$@"; }

# check NAME JS-EXPRESSION: evaluates the expression over the JSON on stdin (as r).
check() {
  node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const r = JSON.parse(s);
      if (!(eval(process.argv[2]))) { console.error("FAIL " + process.argv[1] + ":\n" + s); process.exit(1); }
      console.log("ok   " + process.argv[1]);
    });' "$1" "$2"
}

inspect --method tools/list | check "tools/list names consult, search, lesson" \
  'r.tools.map(t => t.name).sort().join() === "consult,lesson,search" && r.tools.every(t => t.inputSchema.required.length === 1)'
inspect --method tools/call --tool-name consult --tool-arg "question=how do I run the integration tests" | check "consult answers with a ticket line" \
  "!r.isError && r.structuredContent.lesson_id === '$id' && r.structuredContent.ticket.startsWith('<!-- darwin-memo: v1 ')"
inspect --method tools/call --tool-name consult --tool-arg "question=what colour is the dashboard" | check "consult is silent on an unknown topic" \
  '!r.isError && r.structuredContent.silent === true && !r.structuredContent.ticket'
inspect --method tools/call --tool-name search --tool-arg "query=integration tests" | check "search ranks the lesson" \
  "r.structuredContent.hits.length === 1 && r.structuredContent.hits[0].id === '$id'"
inspect --method tools/call --tool-name lesson --tool-arg "id=$id" | check "lesson tells its story" \
  "!r.isError && r.structuredContent.living === true && r.structuredContent.story.includes('$id')"
inspect --method tools/call --tool-name lesson --tool-arg "id=0123456789ab" | check "an unknown id is a tool error, not a crash" \
  'r.isError === true && r.content[0].text.includes("unknown lesson id")'
inspect --method resources/read --uri "darwin-memo://lessons.md" | check "lessons.md resource renders the store" \
  'r.contents[0].mimeType === "text/markdown" && r.contents[0].text.includes("make itest")'
