// webhooks.js copies the real webhook payloads the event tests use from the npm package
// @octokit/webhooks-examples (MIT) into internal/action/testdata/events/, named
// <event>.<what>.octokit-webhooks-examples.json, and lists them with the package version in
// SOURCES.md there.
//
// Usage: node webhooks.js <path to @octokit/webhooks-examples package dir>   (gen.sh runs it)
"use strict";
const fs = require("fs");
const path = require("path");

// [event, index in the package's examples for that event, file stem, what it is]
const CHOSEN = [
  ["pull_request", 3, "pull_request.closed.not-merged", "closed without merging (merged false, merged_at null)"],
  ["push", 4, "push.default-branch", "push to the default branch master"],
  ["push", 0, "push.tag", "push of a tag"],
  ["push", 1, "push.tag-deleted", "deletion of a tag (after is all zeros)"],
  ["workflow_run", 1, "workflow_run.completed", "workflow run completed, triggered by repository_dispatch"],
  ["workflow_run", 3, "workflow_run.requested", "workflow run requested"],
  ["workflow_dispatch", 0, "workflow_dispatch", "manual dispatch, empty inputs"],
];

const pkgDir = process.argv[2];
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
const all = JSON.parse(fs.readFileSync(path.join(pkgDir, "api.github.com", "index.json"), "utf8"));
const dest = path.join(__dirname, "..", "..", "..", "action", "testdata", "events");
const rows = [];
for (const [event, i, stem, what] of CHOSEN) {
  const ev = all.find((e) => e.name === event);
  if (!ev || !ev.examples[i]) throw new Error(`no example ${event}[${i}] in ${pkg.name}@${pkg.version}`);
  const file = `${stem}.octokit-webhooks-examples.json`;
  fs.writeFileSync(path.join(dest, file), JSON.stringify(ev.examples[i], null, 2) + "\n");
  rows.push(`| \`${file}\` | \`${event}\` example ${i} | ${what} |`);
}
const sources = `# Event payloads

Real webhook payloads for the event tests (internal/action/event_test.go).

Files named \`*.octokit-webhooks-examples.json\` are copied verbatim (re-indented) from the npm
package ${pkg.name}@${pkg.version} (${pkg.license}), \`api.github.com/index.json\`, by
internal/ghfake/ghschema/gen/gen.sh. Do not edit them; change webhooks.js and rerun.

| File | Example | What it is |
|---|---|---|
${rows.join("\n")}

The other files come from /work/shared fixtures (see internal/ghfake/testdata/SOURCES.md):
\`pull_request.closed.merged.reallyfastci.json\` is a real captured \`pull_request\` closed
delivery with \`merged: true\` (ailisp/reallyfastci, BSD-3-Clause), the only merged example
found (every octokit example of a closed pull request is unmerged);
\`pull_request.closed.not-merged.octokit-webhooks.json\`, \`workflow_run.completed.octokit-webhooks.json\` and
\`check_run.completed.octokit-webhooks.json\` come from the octokit/webhooks repository (MIT).
`;
fs.writeFileSync(path.join(dest, "SOURCES.md"), sources);
console.log(`wrote ${CHOSEN.length} webhook payloads from ${pkg.name}@${pkg.version} to ${dest}`);
