#!/bin/bash
# Stop 65, call 4: kattn_tests and the Cuda backend tests of 41552d0 (.device/tests/, built here) on the
# H200; compute-sanitizer memcheck and racecheck on the tests of the changed primitives and kernels.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
timeout 120 /tmp/kattn_backend_tests_Cuda > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
tail -3 $OUT/backend-tests.txt
timeout 330 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
grep -E "^\[  (PASSED|FAILED)|tests ran|^rc" $OUT/tests.txt | tail -8
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*TeamBulkCopy*:*WarpgroupRows*' > $OUT/$tool-primitives.txt 2>&1
  echo "rc $?" >> $OUT/$tool-primitives.txt; tail -3 $OUT/$tool-primitives.txt
  timeout 90 compute-sanitizer --tool $tool /tmp/kattn_tests \
    --gtest_filter='KernelClaimingTeams.*' > $OUT/$tool-claiming.txt 2>&1
  echo "rc $?" >> $OUT/$tool-claiming.txt; tail -3 $OUT/$tool-claiming.txt
done
