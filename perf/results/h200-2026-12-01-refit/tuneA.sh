#!/bin/bash
# Call A: the table's sweep and fit on the current kernels, and the targets beside SDPA with the fitted table.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/b/src && xz -dc .device/bin/kattn.xz > /tmp/b/src/kattn && chmod +x /tmp/b/src/kattn
K=/tmp/b/src/kattn; C=$(cat .device/commit); T=/tmp/tune; mkdir -p $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $T/device.txt
SECONDS=0
$K tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json --space data/tuning/spaces/gpu.json \
  --no-check-values --commit $C --output $T/raw.json > $T/sweep.log 2>&1; echo "sweep rc $? ${SECONDS} s" >> $T/times.txt
$K tune fit $T/raw.json --arch h100 --max-depth 6 --output $T/h100.json > $T/fit.log 2>&1; echo "fit rc $? ${SECONDS} s" >> $T/times.txt
$K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --tuning-table $T/h100.json \
  --commit $C --output $T/targets.json > $T/targets.log 2>&1; echo "targets rc $? ${SECONDS} s" >> $T/times.txt
python3 perf/torch_sdpa.py $T/targets.json > $T/sdpa-targets.txt 2>&1; echo "sdpa rc $? ${SECONDS} s" >> $T/times.txt
cp $T/h100.json $OUT/h100.json
gzip $T/raw.json $T/targets.json
tar czf $OUT/tune.tgz -C /tmp tune
cat $T/times.txt; tail -5 $T/fit.log; tail -25 $T/sdpa-targets.txt
