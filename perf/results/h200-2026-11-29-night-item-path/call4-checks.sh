#!/bin/bash
# The shipped build's checks on the device: GPU tests (the CLI at its build path), validate, backend tests, sanitizers,
# the A/B of its probe against lp (base's was left behind: the carry's 64 MiB), the targets beside PyTorch SDPA, Nsight Compute of the planned launches.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests kattn_backend_tests_Cuda kattn_prefill_probe; do xz -dc .device/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p /work/main/build/h100/src && cp /tmp/kattn /work/main/build/h100/src/kattn
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
mkdir -p /tmp/ship /tmp/lp && cp /tmp/kattn_prefill_probe /tmp/ship/ && xz -dc .device/lp_probe.xz > /tmp/lp/kattn_prefill_probe && chmod +x /tmp/lp/kattn_prefill_probe
for round in 1 2; do
  for n in lp ship; do
    /tmp/$n/kattn_prefill_probe 40 10 | sed "s/^/$n gridplan r$round /"
  done
done > $OUT/ab.txt 2>&1
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
  echo "== backend tests"; /tmp/kattn_backend_tests_Cuda --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  B='TileRings.*:WarpRows.*:WarpgroupRows.*'
  K='AllVariants/KernelEdgeCases.TeamsOfEightAndTwelveWarps/*:KernelTeamsOfEightWarps.*'
  echo "== memcheck backend $B"; compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  echo "== memcheck $K"; compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$K" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  echo "== racecheck backend $B"; timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  R='AllVariants/KernelEdgeCases.TeamsOfEightAndTwelveWarps/qblock_static:AllVariants/KernelEdgeCases.TeamsOfEightAndTwelveWarps/segmented_static'
  echo "== racecheck $R"; timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$R" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
/tmp/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -kf $OUT/targets.json
for spec in b1-8192:0 b16-512:8; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip ${spec##*:} --launch-count 1 \
    --metrics launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__inst_executed_op_local_ld.sum \
    /tmp/ship/kattn_prefill_probe 1 0 > $OUT/ncu-${spec%%:*}.txt 2>&1
done
