#!/bin/bash
# Call 4: the CUDA backend tests (tile primitives: TeamBulkCopy, CacheTileBoxRows), memcheck and
# racecheck of the bulk copies; then the block-size A/B of probe binaries (blocks4.sh).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p .device/pkg && tar xJf .device/backend.tar.xz -C .device/pkg && tar xJf .device/probes.tar.xz -C .device
B=.device/pkg/ship/kattn_backend_tests.bin; R=$OUT
timeout 150 $B --gtest_brief=1 > $R/backend-tests.log 2>&1; echo "rc $?" >> $R/backend-tests.log
for t in memcheck racecheck; do timeout 100 compute-sanitizer --tool $t $B --gtest_filter='*TeamBulkCopy*:*CacheTileBoxRows*' > $R/backend-$t.log 2>&1; echo "rc $?" >> $R/backend-$t.log; done
{ tail -n 4 $R/backend-tests.log; grep -E "FAILED" $R/backend-tests.log | head; grep -h -E "^\[ +OK|ERROR SUMMARY|RACECHECK SUMMARY|PASSED|^rc" $R/backend-memcheck.log $R/backend-racecheck.log; } > $R/backend-checks.txt; cat $R/backend-checks.txt
ls .device/bin
bash .device/blocks4.sh
ls $R
