#!/usr/bin/env bash
# Device call (2026-11-28, session 46): 7a9b6b8's tuning sweep (suite and decode scenarios) and its fit, then
# the suite and the targets beside PyTorch SDPA planned from the fitted table.
set -x
P=${1:-ws12}
mkdir -p .device/pkg && tar xJf .device/$P.tar.xz -C .device/pkg
F=$PWD/.device/pkg/ship; R=$OUT; export LD_LIBRARY_PATH=$F/lib:$LD_LIBRARY_PATH; S=perf/scenarios
mkdir -p build/h100/src && printf '#!/bin/sh\nexec %s/kattn "$@"\n' $F > build/h100/src/kattn && chmod +x build/h100/src/kattn
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/device.txt
timeout 300 $F/kattn.bin tune sweep --scenario $S/suite.json,$S/decode.json --space data/tuning/spaces/gpu.json --no-check-values \
  --commit $(cat .device/commit) --output $R/raw.json > $R/tune.log 2>&1; echo "rc $?"; tail -n 2 $R/tune.log
$F/kattn.bin tune fit $R/raw.json --arch h100 --max-depth 6 --output $R/h100.json > $R/fit.log 2>&1; echo "rc $?"; grep -iE "held|sample" $R/fit.log | head
KATTN_COMMIT=$(cat .device/commit) KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values --tuning-table $R/h100.json" timeout 200 perf/run_suite.sh build/h100 $R/suite > /dev/null 2>&1
tail -n 12 $R/suite/run.log
timeout 100 $F/kattn.bin bench --scenario $S/targets.json --warmup 20 --runs 100 --no-check-values --tuning-table $R/h100.json --output $R/targets.json > $R/targets.txt 2>&1
timeout 100 python3 perf/torch_sdpa.py $R/targets.json > $R/sdpa-targets.txt 2>&1
grep -v stream $R/targets.txt | grep -E "^decode|^prefill|^mixed" | awk '{print $1, $2, $6, $12, $13, $14}'; tail -n 10 $R/sdpa-targets.txt
gzip $R/raw.json $R/targets.json; cd $R && tar czf suite.tgz suite tune.log && rm -rf suite tune.log; ls -la $R
