#!/bin/bash
# Stop 63, call 5: kattn_tests and the Cuda backend tests of the change (slots, maps written where the
# workspace lacks them, claim counters in the workspace's counters) on the H200; compute-sanitizer
# memcheck and racecheck on the new and the claiming tests (the CLI's tests, whose binary is not carried, left to the host).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
timeout 120 /tmp/kattn_backend_tests_Cuda > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
tail -3 $OUT/backend-tests.txt
timeout 330 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
grep -E "^\[  (PASSED|FAILED)|tests ran|^rc" $OUT/tests.txt | tail -8
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool /tmp/kattn_tests \
    --gtest_filter='KernelTensorMaps.*:KernelClaimingTeams.*' > $OUT/$tool.txt 2>&1
  echo "rc $?" >> $OUT/$tool.txt; tail -3 $OUT/$tool.txt
done
