#!/bin/bash
# Call 4: the GPU tests of this tree's build (.device/tests/*.xz, built here) and, with its CLI
# (.device/ship/kattn.xz), `kattn validate --variant all` and the targets scenario beside PyTorch SDPA;
# compute-sanitizer memcheck and racecheck on the tests of the kept-max step and the vote.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
mkdir -p build/h100/src && xz -dc .device/ship/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
K=build/h100/src/kattn
timeout 120 /tmp/kattn_backend_tests_Cuda > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
tail -3 $OUT/backend-tests.txt
timeout 300 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
grep -E "^\[  (PASSED|FAILED)|tests ran|^rc" $OUT/tests.txt | tail -8
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*KeptMaxima*:*TeamVote*:*WarpgroupRows*' > $OUT/$tool-primitives.txt 2>&1
  echo "rc $?" >> $OUT/$tool-primitives.txt; tail -2 $OUT/$tool-primitives.txt
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_tests \
    --gtest_filter='*ExtremeLogits.LaterTiles*qblock*' > $OUT/$tool-kernel.txt 2>&1
  echo "rc $?" >> $OUT/$tool-kernel.txt; tail -2 $OUT/$tool-kernel.txt
done
{ echo "== validate"; $K validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"; } > $OUT/checks.txt 2>&1
cat $OUT/checks.txt
$K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -f $OUT/targets.json
tail -30 $OUT/targets-bench.txt
