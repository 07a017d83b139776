#!/bin/bash
# GPU checks of the working tree's build (carried as .device/bin/*.xz beside .device/lib): the GPU
# tests, compute-sanitizer on the tile primitives and the claiming teams, validate --variant all, and
# the targets beside PyTorch SDPA (kernel time, L2 flushed).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main build/h100/src build/h100/tests 2>/dev/null
for b in kattn kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/bin/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p build/h100/src && cp /tmp/kattn build/h100/src/kattn
K=/tmp/kattn; T=/tmp/o; mkdir -p $T; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/device.txt
timeout 120 /tmp/kattn_backend_tests_Cuda > $T/backend-tests.txt 2>&1; echo "rc $?" >> $T/backend-tests.txt
timeout 240 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $T/tests.txt 2>&1
echo "rc $?" >> $T/tests.txt; echo "tests ${SECONDS} s" >> $T/times.txt
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*TeamTileCopy*:*TeamBulkCopy*:*WarpgroupRows*:*WarpRows*' > $T/$tool-primitives.txt 2>&1
  echo "rc $?" >> $T/$tool-primitives.txt
done
timeout 90 compute-sanitizer --tool memcheck /tmp/kattn_tests --gtest_filter='KernelClaimingTeams.*' \
  > $T/memcheck-claiming.txt 2>&1; echo "rc $?" >> $T/memcheck-claiming.txt
echo "sanitizers ${SECONDS} s" >> $T/times.txt
timeout 120 $K validate data/references.h5 --variant all > $T/validate.txt 2>&1
echo "validate rc $? ${SECONDS} s" >> $T/times.txt
timeout 100 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values \
  --commit "$(cat .device/commit)" --output $T/targets.json > $T/targets-bench.txt 2>&1
timeout 60 python3 perf/torch_sdpa.py $T/targets.json >> $T/targets-bench.txt 2>&1
echo "targets rc $? ${SECONDS} s" >> $T/times.txt
gzip $T/targets.json
tar czf $OUT/checks.tgz -C /tmp o
cat $T/times.txt $T/device.txt; tail -n 3 $T/backend-tests.txt
grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran|^rc" $T/tests.txt | tail -6
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|^rc" $T/memcheck-*.txt $T/racecheck-*.txt; tail -n 2 $T/validate.txt
grep -E "prefill|mixed|decode" $T/targets-bench.txt | cut -c1-160 | head -30
