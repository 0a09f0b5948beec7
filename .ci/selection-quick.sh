#!/usr/bin/env bash
# Quick mode of the selection-quality benchmark (issue 6): a few seeds at 0%
# and 10% flaky noise, a few seconds. Exits non-zero when a goal that the
# published defaults meet regresses (see docs/benchmarks.md, "Selection
# quality", and docs/tuning.md). The full run that regenerates the docs is
#   go run ./bench/selection -write docs/benchmarks.md
set -euo pipefail
cd "$(dirname "$0")/.."
# Goals checked here: the ones the full run meets with the defaults.
: "${SELECTION_REQUIRE:=kill}"
go run ./bench/selection -quick -require "$SELECTION_REQUIRE"
