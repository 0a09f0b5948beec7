// gen.js writes ../testdata/openapi-subset.json: the operations darwin-memo-action calls (and
// internal/ghfake serves) from GitHub's published REST API description, with the response
// schemas they reference and nothing else (no descriptions, no examples).
//
// Usage: node gen.js <path to @octokit/openapi package dir>   (gen.sh does the npm part)
"use strict";
const fs = require("fs");
const path = require("path");

// Every operation the product calls, as "METHOD path template". Add one here when the code
// calls a new endpoint, run gen.sh, and commit the result.
const OPERATIONS = [
  "GET /repos/{owner}/{repo}",
  "GET /repos/{owner}/{repo}/pulls",
  "POST /repos/{owner}/{repo}/pulls",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}",
  "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}/commits",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
  "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
  "GET /repos/{owner}/{repo}/commits/{ref}",
  "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls",
  "POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
  "GET /repos/{owner}/{repo}/contents/{path}",
  "GET /repos/{owner}/{repo}/git/ref/{ref}",
  "POST /repos/{owner}/{repo}/git/refs",
  "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
  "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
  "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
  "POST /repos/{owner}/{repo}/git/commits",
  "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
  "POST /repos/{owner}/{repo}/git/trees",
  "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
  "POST /repos/{owner}/{repo}/git/blobs",
  "GET /repos/{owner}/{repo}/compare/{basehead}",
  "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
  "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
  "GET /repos/{owner}/{repo}/commits/{ref}/status",
  "GET /repos/{owner}/{repo}/actions/runs",
  "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
  "GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}",
  "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
  "GET /rate_limit",
];

// Schema keywords kept; everything else (description, example, title, x-*) is dropped.
const KEEP = new Set(["type", "properties", "required", "items", "$ref", "allOf", "anyOf", "oneOf",
  "nullable", "enum", "additionalProperties", "format"]);

const pkgDir = process.argv[2];
if (!pkgDir) {
  console.error("usage: node gen.js <@octokit/openapi package dir>");
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
const file = "generated/api.github.com.json";
const doc = JSON.parse(fs.readFileSync(path.join(pkgDir, file), "utf8"));

const schemas = {};
const pending = [];

function resolveRef(ref) {
  const parts = ref.replace(/^#\//, "").split("/");
  let v = doc;
  for (const p of parts) v = v[p];
  if (v === undefined) throw new Error("unresolved " + ref);
  return v;
}

// strip copies a schema with only the kept keywords, queueing the component schemas it names.
function strip(s) {
  if (Array.isArray(s)) return s.map(strip);
  if (s === null || typeof s !== "object") return s;
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (!KEEP.has(k)) continue;
    if (k === "$ref") {
      if (!v.startsWith("#/components/schemas/")) throw new Error("unexpected $ref " + v);
      const name = v.slice("#/components/schemas/".length);
      if (!(name in schemas)) {
        schemas[name] = null;
        pending.push(name);
      }
      out[k] = v;
    } else if (k === "properties") {
      out[k] = {};
      for (const [pn, pv] of Object.entries(v)) out[k][pn] = strip(pv);
    } else if (k === "enum" || k === "required" || k === "type" || k === "format" || k === "nullable") {
      out[k] = v;
    } else {
      out[k] = strip(v);
    }
  }
  return out;
}

const paths = {};
for (const op of OPERATIONS) {
  const [method, tmpl] = op.split(" ");
  const item = doc.paths[tmpl];
  if (!item || !item[method.toLowerCase()]) throw new Error("not in the description: " + op);
  const o = item[method.toLowerCase()];
  const responses = {};
  for (let [code, r] of Object.entries(o.responses)) {
    if (r.$ref) r = resolveRef(r.$ref);
    const entry = {};
    const json = r.content && (r.content["application/json"] || r.content["application/scim+json"]);
    if (json && json.schema) entry.schema = strip(json.schema);
    if (r.content) entry.contentTypes = Object.keys(r.content);
    responses[code] = entry;
  }
  paths[tmpl] = paths[tmpl] || {};
  paths[tmpl][method.toLowerCase()] = { operationId: o.operationId, responses };
}
while (pending.length) {
  const name = pending.shift();
  schemas[name] = strip(doc.components.schemas[name]);
}
const sorted = {};
for (const k of Object.keys(schemas).sort()) sorted[k] = schemas[k];

const out = {
  "x-generated-by": "internal/ghfake/ghschema/gen/gen.sh; do not edit",
  "x-source": `${pkg.name}@${pkg.version} ${file} (${pkg.license}); GitHub REST API description ${doc.info.version}, OpenAPI ${doc.openapi}`,
  paths,
  components: { schemas: sorted },
};
const dest = path.join(__dirname, "..", "testdata", "openapi-subset.json");
fs.writeFileSync(dest, JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${dest}: ${OPERATIONS.length} operations, ${Object.keys(sorted).length} schemas, from ${pkg.name}@${pkg.version}`);
