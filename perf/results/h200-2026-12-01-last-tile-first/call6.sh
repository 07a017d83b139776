#!/bin/bash
# Call 6: the latency experiment (Figure 9), eager and replayed, on 95f53ae's kernels with the recalibrated h200.json
# built in.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/b && xz -dc .device/ship/kattn.xz > /tmp/b/kattn && chmod +x /tmp/b/kattn
for g in "" "--graph-replay"; do
  /tmp/b/kattn simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 3 $g \
    --output /tmp/latency$g.json > /tmp/latency$g.txt 2>&1
  echo "== --latency-experiment --warmup 1 --runs 3 $g (rc $?)"; grep -v '^$' /tmp/latency$g.txt | head -12
done > $OUT/latency.txt
gzip -c /tmp/latency.json > $OUT/latency-planned.json.gz; gzip -c /tmp/latency--graph-replay.json > $OUT/latency-planned-graph.json.gz
cat $OUT/latency.txt
