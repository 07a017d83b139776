#!/usr/bin/env bash
# The performance suite in one device command (docs/performance.md): kattn bench on
# perf/scenarios/suite.json, the PyTorch SDPA baselines on the same shapes, the plots, and a
# summary table last. OUT_DIR gets suite.json, run.log and five PNG files.
#   [KATTN_COMMIT=REV] [KATTN_SUITE_RUNS="--warmup N --runs M"] perf/run_suite.sh BUILD_DIR OUT_DIR
# KATTN_COMMIT: the revision to record where the checkout has no .git (default: git describe).
set -euo pipefail
build=$(realpath "$1") out=$(mkdir -p "$2" && realpath "$2")
cd "$(dirname "$0")/.."  # the bench reads data/hardware/<arch>.json from here
commit=${KATTN_COMMIT:-$(git describe --always --dirty --abbrev=12 2>/dev/null || echo "")}
runs=${KATTN_SUITE_RUNS:-"--warmup 20 --runs 100"}
python=${PYTHON:-python3}
{
  SECONDS=0
  "$build/src/kattn" bench --scenario perf/scenarios/suite.json $runs --commit "$commit" --output "$out/suite.json"
  echo "kattn bench: ${SECONDS} s"
  PYTHONUNBUFFERED=1 "$python" perf/torch_sdpa.py "$out/suite.json"
  echo "kattn bench + torch_sdpa.py: ${SECONDS} s"
  "$python" perf/plot_suite.py "$out/suite.json" "$out"
  "$python" perf/summarize_suite.py "$out/suite.json"
  echo "suite: ${SECONDS} s"
} 2>&1 | tee "$out/run.log"
