#!/bin/bash
# Session 58: the build's checks on the device: GPU tests (the CLI at its build path), validate, backend tests,
# sanitizers on the changed primitives' tests and on kernel tests that run the one-warpgroup kernel, the targets beside
# PyTorch SDPA, Nsight Compute of the probe's planned launches.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests kattn_backend_tests_Cuda kattn_prefill_probe; do xz -dc .device/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p /work/main/build/h100/src && cp /tmp/kattn /work/main/build/h100/src/kattn
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
  echo "== backend tests"; /tmp/kattn_backend_tests_Cuda --gtest_brief=1 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
{
  B='*TeamTileCopy*:WarpgroupRows.*:WarpRows.*:TeamBulkCopy.*'
  K='AllVariants/GuardRegions.*:AllVariants/KernelEdgeCases.*/qblock_static'
  echo "== memcheck backend $B"; timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  echo "== racecheck backend $B"; timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_backend_tests_Cuda --gtest_brief=1 --gtest_filter="$B" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== memcheck $K"; timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$K" 2>&1 | tail -n 3; echo "rc ${PIPESTATUS[0]}"
  R='AllVariants/GuardRegions.*/qblock_static_*'
  echo "== racecheck $R"; timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 /tmp/kattn_tests --gtest_brief=1 --gtest_filter="$R" 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
} > $OUT/sanitizers.txt 2>&1
/tmp/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -f $OUT/targets.json
for spec in b1-8192:0 b16-512:8; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip ${spec##*:} --launch-count 1 \
    --metrics launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__inst_executed_op_local_ld.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem \
    /tmp/kattn_prefill_probe 1 0 > $OUT/ncu-${spec%%:*}.txt 2>&1
done
