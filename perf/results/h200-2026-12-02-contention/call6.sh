#!/bin/bash
# Stop 66, call 6: 540f180's CLI (built here, .device/ship/kattn.xz) on the device: `kattn validate
# --variant all`, and the targets scenario beside PyTorch SDPA in the same call.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p build/h100/src
xz -dc .device/ship/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
K=build/h100/src/kattn
{ echo "== validate"; $K validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"; } > $OUT/checks.txt 2>&1
cat $OUT/checks.txt
$K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -f $OUT/targets.json
tail -30 $OUT/targets-bench.txt
