#!/bin/bash
# Stop 72 (2026-12-06), one call on the H100: 710a2e8's CLI and test binaries (built here: nvcc 13.0,
# Kokkos 4.6.01 with the CUDA 13 signatures of docs/building.md, sm_90a; carried as .device/bin/*.xz
# and .device/lib.tar.xz) — the GPU tests, compute-sanitizer on the tile primitives and the claiming
# teams, the targets beside SDPA, Nsight Compute on prefill b16 512 (ncu-b16-512.sh: kattn's kernels
# and PyTorch's cuDNN and flash kernels: launch shape, instructions, issue, stall reasons).
set -u
[ -d .device/lib ] || tar xJf .device/lib.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main build/h100/src build/h100/tests
for b in kattn kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/bin/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
cp /tmp/kattn build/h100/src/kattn
K=/tmp/kattn; C=$(cat .device/commit); T=/tmp/o; mkdir -p $T; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/device.txt
# GPU tests (host-only suites and the differential runs left to CI)
timeout 120 /tmp/kattn_backend_tests_Cuda > $T/backend-tests.txt 2>&1; echo "rc $?" >> $T/backend-tests.txt
timeout 240 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $T/tests.txt 2>&1
echo "rc $?" >> $T/tests.txt; echo "tests ${SECONDS} s" >> $T/times.txt
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*TeamBulkCopy*:*WarpgroupRows*:*WarpRows*' > $T/$tool-primitives.txt 2>&1
  echo "rc $?" >> $T/$tool-primitives.txt
done
timeout 90 compute-sanitizer --tool memcheck /tmp/kattn_tests --gtest_filter='KernelClaimingTeams.*' \
  > $T/memcheck-claiming.txt 2>&1; echo "rc $?" >> $T/memcheck-claiming.txt
echo "sanitizers ${SECONDS} s" >> $T/times.txt
# The targets beside PyTorch SDPA (kernel time, L2 flushed)
timeout 100 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --commit $C \
  --output $T/targets.json > $T/targets-bench.txt 2>&1
timeout 60 python3 perf/torch_sdpa.py $T/targets.json >> $T/targets-bench.txt 2>&1
echo "targets rc $? ${SECONDS} s" >> $T/times.txt
# Nsight Compute on b16 512 (its files here are from call C: this line alone, the same binaries, once
# the script's own SDPA launcher had given way to perf/torch_sdpa.py)
bash perf/results/h100-2026-12-06-checks/ncu-b16-512.sh $T $K $T/targets.json
echo "ncu ${SECONDS} s" >> $T/times.txt
gzip $T/targets.json
tar czf $OUT/call.tgz -C /tmp o
cat $T/times.txt $T/device.txt; tail -n 3 $T/backend-tests.txt
grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran|^rc" $T/tests.txt | tail -6
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|^rc" $T/memcheck-*.txt $T/racecheck-*.txt
tail -n 26 $T/targets-bench.txt; cat $T/ncu-*.txt
head -n 14 $T/kattn-stalls.txt $T/cudnn-stalls.txt
