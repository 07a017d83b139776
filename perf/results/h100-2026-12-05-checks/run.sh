#!/bin/bash
# Call A: the shipped CLI (.device/bin/kattn.xz, built here) on the device: validate --variant all; the
# targets beside PyTorch SDPA; the SM clock and power while b16 512 runs back to back; the suite
# beside SDPA and the hardware model calibrated on it (the targets held out); the latency experiment
# eager and replayed.
set -u
[ -d .device/lib ] || tar xJf .device/lib.tar.xz -C .device  # the libraries beside the binaries (built here)
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p build/h100/src && xz -dc .device/bin/kattn.xz > build/h100/src/kattn && chmod +x build/h100/src/kattn
K=build/h100/src/kattn; C=$(cat .device/commit); T=/tmp/a; mkdir -p $T/o; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/o/device.txt
arch=$(grep -q H200 $T/o/device.txt && echo h200 || echo h100)
timeout 120 $K validate data/references.h5 --variant all > $T/o/validate.txt 2>&1
echo "validate rc $? ${SECONDS} s" >> $T/o/times.txt
timeout 100 $K bench --scenario perf/scenarios/targets.json --warmup 20 --runs 100 --no-check-values --commit $C \
  --output $T/o/targets.json > $T/o/targets-bench.txt 2>&1
timeout 60 python3 perf/torch_sdpa.py $T/o/targets.json >> $T/o/targets-bench.txt 2>&1
echo "targets rc $? ${SECONDS} s" >> $T/o/times.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 20 \
  > $T/o/clocks-b16-512.csv 2>&1 &
smi=$!; sleep 1
timeout 60 $K bench --scenario perf/scenarios/targets.json --case prefill-b16-512 --warmup 20 --runs 8000 --no-check-values \
  > $T/o/clocks-bench.txt 2>&1 &
bpid=$!
sleep 3; nvidia-smi -q -d PERFORMANCE,CLOCK,POWER > $T/o/clocks-mid-run.txt 2>&1; wait $bpid
sleep 1; kill $smi; echo "clocks ${SECONDS} s" >> $T/o/times.txt
KATTN_COMMIT=$C KATTN_SUITE_RUNS="--warmup 5 --runs 20 --no-check-values" timeout 300 perf/run_suite.sh build/h100 $T/suite > /dev/null 2>&1
echo "suite rc $? ${SECONDS} s" >> $T/o/times.txt
timeout 90 $K model calibrate --suite $T/suite/suite.json --holdout $T/o/targets.json --hardware data/hardware/models/$arch.json \
  --timing kernel --output $T/o/$arch.json > $T/o/calibrate.txt 2>&1
echo "calibrate rc $? ${SECONDS} s" >> $T/o/times.txt
for g in "" "--graph-replay"; do
  timeout 100 $K simulate --model data/models/llama-3.1-8b.json --latency-experiment --warmup 1 --runs 3 $g \
    --output $T/o/latency$g.json > $T/latency$g.txt 2>&1
  echo "== --latency-experiment --warmup 1 --runs 3 $g (rc $?, ${SECONDS} s)"; grep -v '^$' $T/latency$g.txt | head -14
done > $T/o/latency.txt
gzip $T/o/*.json; cp $T/suite/run.log $T/o/suite-run.log; gzip -c $T/suite/suite.json > $T/o/suite.json.gz
tar czf $OUT/callA.tgz -C $T o
cat $T/o/times.txt $T/o/device.txt; tail -n 2 $T/o/validate.txt; tail -n 28 $T/o/targets-bench.txt
tail -n 12 $T/o/calibrate.txt; tail -n 40 $T/suite/run.log | grep -v '^$' | tail -n 30; head -n 30 $T/o/latency.txt
