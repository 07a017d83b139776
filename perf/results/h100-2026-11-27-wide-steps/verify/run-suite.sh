#!/usr/bin/env bash
# Device call 6 (2026-11-27 night): the refitted tree's suite beside PyTorch SDPA (call 5 passed the
# package, not a build folder, to run_suite.sh).
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; R=$OUT
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 500 perf/run_suite.sh build/h100 $R/suite > /dev/null 2>&1
tail -n 14 $R/suite/run.log
cd $R && tar czf suite.tgz suite && rm -rf suite; ls $R
