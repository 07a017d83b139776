#!/bin/bash
# Call 2: on 540f180's CLI (.device/bin/kattn.xz, the kernels that ship; the tree's model change is
# host code the experiment does not use): the latency experiment eager and replayed, then kattn tune
# sweep and fit (depth 6) on the suite and decode scenarios, and the targets with the fitted table
# beside PyTorch SDPA.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/b/src && xz -dc .device/bin/kattn.xz > /tmp/b/src/kattn && chmod +x /tmp/b/src/kattn
K=/tmp/b/src/kattn; C=$(cat .device/commit); T=/tmp/tune; mkdir -p $T; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for g in "" "--graph-replay"; do
  timeout 100 $K simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 3 $g \
    --output /tmp/latency$g.json > /tmp/latency$g.txt 2>&1
  echo "== --latency-experiment --warmup 1 --runs 3 $g (rc $?, ${SECONDS} s)"; grep -v '^$' /tmp/latency$g.txt | head -14
done > $OUT/latency.txt
gzip -c /tmp/latency.json > $OUT/latency-planned.json.gz; gzip -c /tmp/latency--graph-replay.json > $OUT/latency-planned-graph.json.gz
timeout 300 $K tune sweep --scenario perf/scenarios/suite.json,perf/scenarios/decode.json --space data/tuning/spaces/gpu.json \
  --no-check-values --commit $C --output $T/raw.json > $T/sweep.log 2>&1; echo "sweep rc $? ${SECONDS} s" >> $T/times.txt
$K tune fit $T/raw.json --arch h100 --max-depth 6 --output $T/h100.json > $T/fit.log 2>&1; echo "fit rc $? ${SECONDS} s" >> $T/times.txt
timeout 100 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --tuning-table $T/h100.json \
  --commit $C --output $T/targets.json > $T/targets.log 2>&1; echo "targets rc $? ${SECONDS} s" >> $T/times.txt
timeout 60 python3 perf/torch_sdpa.py $T/targets.json > $T/sdpa-targets.txt 2>&1; echo "sdpa rc $? ${SECONDS} s" >> $T/times.txt
cp $T/h100.json $OUT/h100.json
gzip $T/raw.json $T/targets.json
tar czf $OUT/tune.tgz -C /tmp tune
cat $T/times.txt; head -30 $OUT/latency.txt; tail -5 $T/fit.log; tail -25 $T/sdpa-targets.txt
