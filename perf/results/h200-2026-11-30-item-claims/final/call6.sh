#!/bin/bash
# Session 59, call 6: the final build (the claims where a part has 4 items a resident team): kattn_tests and validate,
# its probe against base59 (three rounds), the targets beside SDPA, the suite (5 + 20 runs a case) beside SDPA.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
for b in kattn kattn_tests; do xz -dc .device/final/$b.xz > /tmp/$b && chmod +x /tmp/$b; done
mkdir -p $PWD/build/h100/src && cp /tmp/kattn $PWD/build/h100/src/kattn
{
  echo "== kattn_tests"; /tmp/kattn_tests --gtest_brief=1 2>&1 | tail -n 4; echo "rc ${PIPESTATUS[0]}"
  echo "== validate"; /tmp/kattn validate data/references.h5 --variant all 2>&1 | tail -n 2; echo "rc ${PIPESTATUS[0]}"
} > $OUT/checks.txt 2>&1
ROUNDS=3 bash .device/s59ab.sh base59 final
/tmp/kattn bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --output $OUT/targets.json > $OUT/targets-bench.txt 2>&1
python3 perf/torch_sdpa.py $OUT/targets.json >> $OUT/targets-bench.txt 2>&1
rm -f $OUT/targets.json  # its table is in targets-bench.txt (8 files come back)
mkdir -p /tmp/sb/src && cp /tmp/kattn /tmp/sb/src/kattn
KATTN_COMMIT=$1 KATTN_SUITE_RUNS="--warmup 5 --runs 20" timeout 400 perf/run_suite.sh /tmp/sb $OUT/suite > $OUT/suite-stdout.txt 2>&1
echo "rc $?" >> $OUT/suite-stdout.txt
gzip -f $OUT/suite/suite.json
rm -f $OUT/suite/*.png
