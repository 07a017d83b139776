#!/bin/bash
# Call 4: the shipped build (95f53ae) on the device: its probe against c628570's (three rounds, planned and forced
# team sizes), GPU tests (the CLI at its build path), validate, compute-sanitizer on the kernel tests
# that run the one-warpgroup and producer kernels, and the targets beside PyTorch SDPA (no backend tests: the tile
# primitives did not change, and the tree with them passed the 64 MiB a call carries).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && [ -e /work/main ] || ln -s "$PWD" /work/main
mkdir -p build/h100/src build/h100/tests
xz -dc .device/ship/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
xz -dc .device/ship/kattn_tests.xz > build/h100/tests/kattn_tests && chmod +x build/h100/tests/kattn_tests
K=build/h100/src/kattn T=build/h100/tests/kattn_tests
ROUNDS=3 bash perf/results/h200-2026-11-30-item-claims/ab/call1.sh cur ship
{
  echo "== kattn_tests"; (cd build/h100/tests && ./kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}")
  echo "== validate"; $K validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
{
  M='AllVariants/GuardRegions.*:AllVariants/KernelEdgeCases.*/qblock_static*:AllVariants/KernelEdgeCases.*/segmented_static*'
  echo "== memcheck $M"; timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_brief=1 --gtest_filter="$M" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  R='AllVariants/GuardRegions.*/qblock_static_*:AllVariants/KernelEdgeCases.TeamsOfEightAndTwelveWarps/*static*'
  echo "== racecheck $R"; timeout 200 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $T --gtest_brief=1 --gtest_filter="$R" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
} > $OUT/sanitizers.txt 2>&1
$K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -f $OUT/targets.json
