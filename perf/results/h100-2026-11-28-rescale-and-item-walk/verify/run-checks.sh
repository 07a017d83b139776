#!/usr/bin/env bash
# Device call (2026-11-28, session 46): the shipped binary (the rescale under Q·K(t)ᵀ for teams of one
# warpgroup): GPU tests, validate, compute-sanitizer memcheck and racecheck.
set -x
P=${1:-ws11}
mkdir -p .device/pkg && tar xJf .device/$P.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ship; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 200 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
timeout 60 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.log 2>&1; echo "rc $?" >> $R/validate.log
for t in memcheck racecheck; do timeout 120 compute-sanitizer --tool $t $F/kattn_tests.bin --gtest_filter='*KernelEdgeCases.WideQBlocks/qblock*:*TeamsOfEightWarps/qblock:*TeamsOfEightWarps/qblock_static:*CacheRowsOffTheTileCopy*' --gtest_brief=1 > $R/$t.log 2>&1; done
{ tail -n 3 $R/tests.log; grep -E "FAILED" $R/tests.log | head; tail -n 3 $R/validate.log; grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|tests ran" $R/memcheck.log $R/racecheck.log; } > $R/checks.txt; cat $R/checks.txt
cd $R && tar czf logs.tgz *.log && rm -f *.log; ls $R
