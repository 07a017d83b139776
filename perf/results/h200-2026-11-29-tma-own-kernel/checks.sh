#!/usr/bin/env bash
# Device call: the bulk-tile build's GPU tests (kattn_tests, the CUDA backend tests), validate,
# compute-sanitizer memcheck and racecheck of the kernels and primitives that take the bulk tiles.
set -x
mkdir -p .device/pkg && tar xJf .device/ship.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ship; R=$OUT
mkdir -p build/h100/src && printf "#!/bin/sh\nexec %s/kattn.bin \"\$@\"\n" $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
echo "cwd $PWD"; if [ "$PWD" != /work/main ]; then mkdir -p /work/main/build/h100/src && cp build/h100/src/kattn /work/main/build/h100/src/kattn; fi
export LD_LIBRARY_PATH=$F/lib:$PWD/.device/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
[ -x $F/kattn_tests.bin ] && timeout 240 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
[ -x $F/kattn.bin ] && timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.log 2>&1; echo "rc $?" >> $R/validate.log
[ -x $F/kattn_backend_tests.bin ] && timeout 100 $F/kattn_backend_tests.bin --gtest_brief=1 > $R/backend-tests.log 2>&1; echo "rc $?" >> $R/backend-tests.log
[ -x $F/kattn_backend_tests.bin ] && for t in memcheck racecheck; do timeout 100 compute-sanitizer --tool $t $F/kattn_backend_tests.bin --gtest_filter='*TeamBulkCopy*:*CacheTileBoxRows*' --gtest_brief=1 > $R/backend-$t.log 2>&1; echo "rc $?" >> $R/backend-$t.log; done
[ -x $F/kattn_tests.bin ] && for t in memcheck racecheck; do timeout 150 compute-sanitizer --tool $t $F/kattn_tests.bin --gtest_filter='*LargeCacheBlocks*:*TeamsOfEightWarps/qblock:*TeamsOfEightWarps/qblock_static:*CacheRowsOffTheTileCopy*' --gtest_brief=1 > $R/$t.log 2>&1; echo "rc $?" >> $R/$t.log; done
{ tail -n 3 $R/tests.log; grep -E "FAILED" $R/tests.log | head; tail -n 3 $R/validate.log; grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|tests ran|^rc" $R/memcheck.log $R/racecheck.log; tail -n 4 $R/backend-tests.log; grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|^rc" $R/backend-memcheck.log $R/backend-racecheck.log; } > $R/checks.txt; cat $R/checks.txt
cd $R && tar czf logs.tgz *.log && rm -f *.log; ls $R
