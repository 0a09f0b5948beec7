#!/usr/bin/env bash
# Quick mode of the selection-quality benchmark (issue 6): 4 seeds at 0% and
# 10% flaky noise, a few seconds. Exits non-zero when a goal regresses (see
# docs/benchmarks.md, "Selection quality", and docs/tuning.md). The full run
# that regenerates the docs is
#   go run ./bench/selection -write docs/benchmarks.md -tuning docs/tuning.md
set -euo pipefail
cd "$(dirname "$0")/.."
# Gated: the `ledger` arm, which runs the defaults (scale 1.5, supporting_share
# 0, bundle split, regressions assessed apart, retrieval upkeep, idle upkeep
# scale, tenure and harm gain for new stores; docs/tuning.md), consulting with
# BM25F, the ranking decide ships (report.BenchRetrieval), on issue 6's kill,
# retention and cumulative-delta goals and every row of issue 13's goal table
# (kill10, damage, capability, lead0, lead10). Over the full seeds 1-20 it
# meets them all but damage, by half a test (34.5 against 34; 47 on the
# held-out seeds 21-40, as with darwin-memo's ranking; docs/benchmarks.md); the
# quick seeds meet damage with room (30), so a regression there still fails.
# The `ledger_issue6` and `ledger_darwin-memo` arms are reported for
# comparison, not gated; the strikes goal is about the baselines.
# Override with SELECTION_REQUIRE / SELECTION_REQUIRE_ARM.
: "${SELECTION_REQUIRE:=kill,retention,cumdelta0,cumdelta10,kill10,damage,capability,lead0,lead10}"
: "${SELECTION_REQUIRE_ARM:=ledger}"
go run ./bench/selection -quick -require "$SELECTION_REQUIRE" -require-arm "$SELECTION_REQUIRE_ARM"
