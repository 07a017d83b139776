#!/bin/bash
# ab.sh: A/B of probe binaries in .device/bin/<name>/kattn_prefill_probe, alternating, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/device.txt
names="$*"
for round in 1 2; do
  for n in $names; do
    echo "== $n round $round" | tee -a $OUT/ab-raw.txt
    timeout 120 .device/bin/$n/kattn_prefill_probe 40 10 2>&1 | tee -a $OUT/ab-raw.txt
  done
done
