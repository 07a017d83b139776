#!/bin/bash
# Call 5: the suite beside PyTorch SDPA on this tree's CLI (.device/ship/kattn.xz, the shipped table), and the hardware model
# calibrated on it with call 4's targets held out (.device/targets.json.gz).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p build/h100/src && xz -dc .device/ship/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
K=build/h100/src/kattn C=$(cat .device/commit); T=/tmp/b; mkdir -p $T; SECONDS=0
gunzip -c .device/targets.json.gz > $T/targets.json
KATTN_COMMIT=$C KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 400 perf/run_suite.sh build/h100 $T/suite > /dev/null 2>&1
echo "suite rc $? ${SECONDS} s" > $OUT/times.txt
gzip -k $T/suite/suite.json; tar czf $OUT/suite.tgz -C $T suite/suite.json.gz suite/run.log
python3 perf/summarize_suite.py $T/suite/suite.json > $OUT/summary.txt 2>&1
timeout 90 $K model calibrate --suite $T/suite/suite.json --holdout $T/targets.json --hardware data/hardware/models/h200.json \
  --timing kernel --output $OUT/h200.json > $OUT/calibrate.txt 2>&1
echo "calibrate rc $? ${SECONDS} s" >> $OUT/times.txt
cat $OUT/times.txt; tail -30 $OUT/summary.txt; tail -12 $OUT/calibrate.txt
