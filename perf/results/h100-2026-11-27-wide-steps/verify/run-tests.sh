#!/usr/bin/env bash
# Device call 4 (2026-11-27 night): the refitted tree's GPU tests, validate, and the sanitizers on
# the two-warpgroup kernel.
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; R=$OUT
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 170 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt
timeout 60 $F/kattn_backend_tests_Cuda.bin --gtest_brief=1 > $R/backend-tests.txt 2>&1; echo "rc $?" >> $R/backend-tests.txt
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.txt 2>&1; echo "rc $?" >> $R/validate.txt
tail -n 4 $R/validate.txt > $R/validate-tail.txt
{ for t in memcheck racecheck; do timeout 100 compute-sanitizer --tool $t $F/kattn_tests.bin --gtest_filter='*TeamsOfEightWarps/qblock:*CacheRowsOffTheTileCopy*' --gtest_brief=1; done; } > $R/sanitizers.txt 2>&1
tail -n 3 $R/tests.txt $R/backend-tests.txt $R/validate.txt; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/sanitizers.txt
rm -f $R/validate.txt; ls $R
