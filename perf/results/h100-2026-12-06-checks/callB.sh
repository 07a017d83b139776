#!/bin/bash
# Call B (after run.sh, same build): b16 512 on the kernels kattn already has — teams of 4 (the plan),
# of 8 (two warpgroups of rows, 128-row items) and of 12 (a producer beside them) — timed (their
# Nsight Compute rows: ncu-b16-512.sh).
set -u
[ -d .device/lib ] || tar xJf .device/lib.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
xz -dc .device/bin/kattn.xz > /tmp/kattn && chmod +x /tmp/kattn
K=/tmp/kattn; T=/tmp/b; mkdir -p $T; SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $T/device.txt
S="--scenario perf/scenarios/targets.json --case prefill-b16-512 --no-check-values"
timeout 100 $K bench $S --warmup 20 --runs 100 > $T/teams-bench.txt 2>&1
timeout 100 $K bench $S --warmup 20 --runs 100 --variant qblock_static --tile-size 128 --block-m 128 \
  --team-size 8,12 >> $T/teams-bench.txt 2>&1
echo "bench ${SECONDS} s" >> $T/times.txt
tar czf $OUT/callB.tgz -C /tmp b
cat $T/times.txt $T/device.txt; grep -E "prefill|case " $T/teams-bench.txt | cut -c1-170
