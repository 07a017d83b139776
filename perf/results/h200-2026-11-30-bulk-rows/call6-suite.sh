#!/bin/bash
# The suite beside PyTorch SDPA on the shipped build (5 + 20 runs a case), as the stop before's verify runs took it.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/sb/src && xz -dc .device/kattn.xz > /tmp/sb/src/kattn && chmod +x /tmp/sb/src/kattn
KATTN_COMMIT=c549da7 KATTN_SUITE_RUNS="--warmup 5 --runs 20" timeout 560 perf/run_suite.sh /tmp/sb $OUT/suite > $OUT/suite-stdout.txt 2>&1
echo "rc $?" >> $OUT/suite-stdout.txt
gzip -f $OUT/suite/suite.json
