#!/bin/bash
# Session 59, call 4: the shipped build's probe against HEAD's (base59), three rounds, planned launches; Nsight
# Compute counts of both on b16 512 at teams of 4; the targets beside PyTorch SDPA.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
ROUNDS=3 bash .device/s59ab.sh base59 ship
xz -dc .device/ship/kattn.xz > /tmp/kattn && chmod +x /tmp/kattn
/tmp/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
gzip -f $OUT/targets.json
