#!/usr/bin/env bash
# Quick mode of the selection-quality benchmark (issue 6): 4 seeds at 0% and
# 10% flaky noise, a few seconds. Exits non-zero when a goal regresses (see
# docs/benchmarks.md, "Selection quality", and docs/tuning.md). The full run
# that regenerates the docs is
#   go run ./bench/selection -write docs/benchmarks.md -tuning docs/tuning.md
set -euo pipefail
cd "$(dirname "$0")/.."
# Gated: the `ledger` arm, which runs the defaults (scale 1.5, supporting_share
# 0, bundle split, retrieval upkeep, idle upkeep scale, tenure and harm gain for
# new stores; docs/tuning.md), on the goals it meets over the full seeds 1-20:
# issue 6's kill, retention and cumulative-delta goals and issue 13's kill10,
# capability, lead0 and lead10. Issue 13's damage goal (at most 34 tests) is
# not met over seeds 1-20 (docs/benchmarks.md) and is not gated, although the
# quick seeds meet it. The `ledger_issue6` and `ledger_darwin-memo` arms are
# reported for comparison, not gated; the strikes goal is about the baselines.
# Override with SELECTION_REQUIRE / SELECTION_REQUIRE_ARM.
: "${SELECTION_REQUIRE:=kill,retention,cumdelta0,cumdelta10,kill10,capability,lead0,lead10}"
: "${SELECTION_REQUIRE_ARM:=ledger}"
go run ./bench/selection -quick -require "$SELECTION_REQUIRE" -require-arm "$SELECTION_REQUIRE_ARM"
