#!/usr/bin/env bash
# Device call 5 (2026-11-27 night): the refitted tree's GPU tests with the CLI in place (build/h100/src/kattn,
# which call 4 lacked), then its targets and suite beside PyTorch SDPA.
set -x
mkdir -p .device/pkg && tar xJf .device/final.tar.xz -C .device/pkg
F=$PWD/.device/pkg/final; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; R=$OUT
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 150 $F/kattn_tests.bin --gtest_brief=1 > $R/tests.txt 2>&1; echo "rc $?" >> $R/tests.txt; tail -n 4 $R/tests.txt
timeout 120 $F/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $R/targets.json > $R/targets.txt 2>&1
timeout 120 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 280 perf/run_suite.sh $F $R/suite > /dev/null 2>&1
tail -n 12 $R/suite/run.log; grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $6, $12}'; tail -n 12 $R/sdpa-targets.txt
gzip $R/targets.json; cd $R && tar czf suite.tgz suite && rm -rf suite; ls $R
