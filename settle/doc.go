// Package settle measures the CI pass delta of a merged pull request from
// the GitHub REST API, the only signal allowed to move a lesson's energy.
//
// Measure picks two commits: "after" is the PR's final head (its
// pull_request CI), or the merge commit's push CI when the head has no CI;
// "before" is the first parent of the merge commit for merge and
// squash merges, the commit before the rebased run for rebase merges, then
// base.sha, then the compare merge base, walking first parents (bounded)
// past commits without CI. It then reads per-test results from the best
// source present at both commits:
//
//	a. EnricoMi/publish-unit-test-result-action check runs (digest + the
//	   "N tests found" annotation lists),
//	b. JUnit XML in workflow-run artifacts (downloaded through the 302 with
//	   a client that never carries the token; size, zip-slip and zip-bomb
//	   safe),
//	c. dorny/test-reporter and mikepenz/action-junit-report check runs,
//	d. job-level check-run conclusions,
//	e. the combined commit status (CI outside Actions).
//
// Diff applies darwin-memo's newest settle-ci semantics: only tests present
// and measured at both commits count, delta = improvements - regressions,
// added and removed tests are never credited, tests that passed
// only on a rerun are flaky (never a transition), and tests quarantined by
// the flaky sidecar (FlakyHistory) are left out. The Result is measured,
// pending (CI not complete, or GitHub could not answer: settle later) or
// abstained (nothing measurable); a missing count is never zero.
package settle
