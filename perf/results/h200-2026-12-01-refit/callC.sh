#!/bin/bash
# Call C: the latency experiment's summaries (call B kept only its last lines) and kattn_tests on the build with the
# refitted table (the CLI at its build path, /work/main/build/h100/src/kattn, as the tests were compiled).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && [ -e /work/main ] || ln -s "$PWD" /work/main
mkdir -p build/h100/src build/h100/tests && xz -dc .device/bin/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
xz -dc .device/bin/kattn_tests.xz > build/h100/tests/kattn_tests && chmod +x build/h100/tests/kattn_tests
K=build/h100/src/kattn
for g in "" "--graph-replay"; do
  $K simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 3 $g \
    --output /tmp/latency$g.json > /tmp/latency$g.txt 2>&1
  echo "== --latency-experiment --warmup 1 --runs 3 $g (rc $?)"; grep -v '^$' /tmp/latency$g.txt | head -12
done > $OUT/latency.txt
gzip -c /tmp/latency.json > $OUT/latency-planned.json.gz; gzip -c /tmp/latency--graph-replay.json > $OUT/latency-planned-graph.json.gz
(cd build/h100/tests && timeout 420 ./kattn_tests --gtest_brief=1 > $OUT/kattn_tests.txt 2>&1; echo "kattn_tests rc $?" >> $OUT/kattn_tests.txt)
cat $OUT/latency.txt | head -30; tail -5 $OUT/kattn_tests.txt
