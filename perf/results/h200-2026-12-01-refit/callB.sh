#!/bin/bash
# Call B: the build with the refitted table built in: the suite beside SDPA, the hardware model's calibration on it
# (targets of call A held out), validate --variant all, the latency experiment eager and replayed.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p build/h100/src && xz -dc .device/bin/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
K=build/h100/src/kattn; C=$(cat .device/commit); T=/tmp/b; mkdir -p $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
gunzip -c .device/targets.json.gz > $T/targets.json
SECONDS=0
KATTN_COMMIT=$C KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 300 perf/run_suite.sh build/h100 $T/suite > /dev/null 2>&1
echo "suite rc $? ${SECONDS} s" >> $OUT/times.txt
gzip -k $T/suite/suite.json; tar czf $OUT/suite.tgz -C $T suite/suite.json.gz suite/run.log
timeout 90 $K model calibrate --suite $T/suite/suite.json --holdout $T/targets.json --hardware data/hardware/models/h200.json \
  --timing kernel --output $OUT/h200.json > $OUT/calibrate.txt 2>&1
echo "calibrate rc $? ${SECONDS} s" >> $OUT/times.txt
timeout 120 $K validate data/references.h5 --variant all > $OUT/validate.txt 2>&1
echo "validate rc $? ${SECONDS} s" >> $OUT/times.txt
for g in "" "--graph-replay"; do
  timeout 100 $K simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 3 $g \
    --output $T/latency$g.json 2>&1 | tail -3 >> $OUT/latency.txt
  echo "latency $g rc $? ${SECONDS} s" >> $OUT/times.txt
done
cat $OUT/times.txt; tail -12 $OUT/calibrate.txt; tail -3 $OUT/validate.txt; cat $OUT/latency.txt
