#!/bin/bash
# Stop 63, call 6: compute-sanitizer racecheck on the new tests alone (call 5's racecheck of the
# claiming test beside them ran past its 60 s).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
for t in kattn_tests kattn_backend_tests_Cuda; do xz -dc .device/tests/$t.xz > /tmp/$t && chmod +x /tmp/$t; done
timeout 300 compute-sanitizer --tool racecheck /tmp/kattn_tests --gtest_filter='KernelTensorMaps.*' > $OUT/racecheck.txt 2>&1
echo "rc $?" >> $OUT/racecheck.txt; tail -3 $OUT/racecheck.txt
timeout 120 compute-sanitizer --tool racecheck /tmp/kattn_backend_tests_Cuda --gtest_filter='*QBlockSlots*' > $OUT/racecheck-slots.txt 2>&1
echo "rc $?" >> $OUT/racecheck-slots.txt; tail -3 $OUT/racecheck-slots.txt
