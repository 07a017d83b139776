#!/usr/bin/env bash
# Device call 3 (2026-11-27 night): the two-warpgroup tree's tests, then kattn tune sweep of the
# suite and decode scenarios (team sizes 4 and 8 in the space) for the refit of data/tuning/h100.json.
set -x
mkdir -p .device/pkg && tar xJf .device/wide3.tar.xz -C .device/pkg
F=$PWD/.device/pkg/wide3; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; S=perf/scenarios
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 100 $F/kattn_tests.bin --gtest_filter='*KernelEdgeCases*:*TeamsOfEightWarps*' --gtest_brief=1 > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt
tail -3 $R/tests.txt
timeout 480 $F/kattn.bin tune sweep --scenario $S/suite.json,$S/decode.json --space data/tuning/spaces/gpu.json --no-check-values \
  --commit $(cat .device/commit) --output $R/raw.json > $R/tune.log 2>&1
echo "rc $?"; tail -n 3 $R/tune.log; gzip $R/raw.json; gzip $R/tune.log; ls -la $R
