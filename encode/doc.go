// Package encode turns a merged pull request into candidate lessons for
// AI coding agents.
//
// The pipeline is:
//
//  1. Collect (or build directly) a PR: title, sanitised body, labels,
//     author association, changed files with capped hunks, review
//     comments, commit subjects and the CI failures the PR fixed.
//  2. Turn it into documents with stable ids (pr, diff:<path>,
//     review:<id>, ci:<test>, commit:<sha7>), every field capped.
//  3. Ask one Provider (ollama, openai, anthropic, github or the
//     deterministic none) for 0 to 5 question/answer lessons that cite
//     document ids. PR text goes in as JSON data inside a random-nonce
//     delimiter; the model gets no tools.
//  4. Validate every lesson in Go and reject, never repair: schema and
//     lengths, citations that exist, URLs, shell commands absent from the
//     diff, instructions aimed at agents, secret-like strings, and words
//     not grounded in the cited documents.
//  5. Drop near-duplicates of living lessons (token Jaccard >= 0.55) and
//     give the rest a content-hash id, sources and the merge time.
//
// When a provider fails, or asks to wait longer than 60 seconds, the
// encoder falls back to the deterministic encoder and says so in
// Result.Fallback. API keys and prompt bodies are never logged.
//
// See docs/encoding.md for the exact rules.
package encode
