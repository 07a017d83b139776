#!/bin/bash
# Stop 66, call 5: kattn_tests and the Cuda backend tests of 540f180 (.device/tests/, built here) on
# the H200; compute-sanitizer memcheck and racecheck on the tests of the changed primitives.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
timeout 120 /tmp/kattn_backend_tests_Cuda > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
tail -3 $OUT/backend-tests.txt
timeout 330 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
grep -E "^\[  (PASSED|FAILED)|tests ran|^rc" $OUT/tests.txt | tail -8
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool /tmp/kattn_backend_tests_Cuda \
    --gtest_filter='*WarpRows*:*WarpgroupRows*:*RowProducts*' > $OUT/$tool-rows.txt 2>&1
  echo "rc $?" >> $OUT/$tool-rows.txt; tail -3 $OUT/$tool-rows.txt
done
gzip -f $OUT/tests.txt
