#!/usr/bin/env bash
# Device call (2026-11-28, afternoon): the entry points split by storage combination (split-instances
# branch, kernels as d7f7673): all GPU tests, the Cuda backend's tests, validate, the targets (no SDPA).
set -x
mkdir -p .device/pkg && tar xJf .device/ws24.tar.xz -C .device/pkg
F=$PWD/.device/pkg/split; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH
# The tests were built in /work/split: their CLI and data paths point there.
[ -e /work/split ] || ln -s "$PWD" /work/split
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; pwd; ls -ld /work/split; } > $R/device.txt
timeout 300 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.log 2>&1; echo "rc $?" >> $R/tests.log
timeout 150 $F/kattn_backend_tests_Cuda.bin --gtest_brief=1 > $R/backend-tests.log 2>&1; echo "rc $?" >> $R/backend-tests.log
timeout 90 $F/kattn.bin validate data/references.h5 --variant all > $R/validate.log 2>&1; echo "rc $?" >> $R/validate.log
timeout 120 $F/kattn.bin bench --scenario perf/scenarios/targets.json --warmup 10 --runs 40 --no-check-values > $R/targets.txt 2>&1; echo "rc $?" >> $R/targets.txt
{ tail -n 3 $R/tests.log; grep -E "FAILED" $R/tests.log | head; tail -n 3 $R/backend-tests.log; tail -n 3 $R/validate.log; } > $R/checks.txt; cat $R/checks.txt
cd $R && tar czf logs.tgz *.log && rm -f *.log; ls $R
