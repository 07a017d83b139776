#!/bin/bash
# Stop 64, call 5: kattn_tests and the Cuda backend tests of blocks (tile_blocks by unsigned offsets,
# PublishedMaps' fixed record) on the H200; compute-sanitizer memcheck on the tensor-maps and claiming
# tests (the CLI's tests, whose binary is not carried, left to the host).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
timeout 120 /tmp/kattn_backend_tests_Cuda > $OUT/backend-tests.txt 2>&1; echo "rc $?" >> $OUT/backend-tests.txt
tail -3 $OUT/backend-tests.txt
timeout 330 /tmp/kattn_tests --gtest_filter='-*Differential*:Cli.*:HardwareModel.*' > $OUT/tests.txt 2>&1; echo "rc $?" >> $OUT/tests.txt
grep -E "^\[  (PASSED|FAILED)|tests ran|^rc" $OUT/tests.txt | tail -8
timeout 90 compute-sanitizer --tool memcheck /tmp/kattn_tests \
  --gtest_filter='KernelTensorMaps.*:KernelClaimingTeams.*:PublishedMaps.*' > $OUT/memcheck.txt 2>&1
echo "rc $?" >> $OUT/memcheck.txt; tail -3 $OUT/memcheck.txt
