#!/bin/bash
# Call B (after run.sh, same build): b16 512 on the kernels kattn already has — teams of 4 (the plan),
# of 8 (two warpgroups of rows, 128-row items) and of 12 (a producer beside them) — timed, and the
# teams of 12 under Nsight Compute (the metrics and stall sources of run.sh's kattn and cuDNN rows).
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
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,smsp__average_warp_latency_per_inst_issued.ratio
for t in 8 12; do
  echo "== kattn b16 512, teams of $t"
  timeout 120 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 2 --launch-count 1 \
    --metrics $M $K bench $S --warmup 2 --runs 1 --variant qblock_static --tile-size 128 --block-m 128 --team-size $t \
    2>&1 | grep -v '^==PROF==' | grep -A16 QBlockMma | head -18
done > $T/ncu-teams.txt 2>&1
timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 2 --launch-count 1 \
  --section SourceCounters --section WarpStateStats -o /tmp/t12 -f $K bench $S --warmup 2 --runs 1 \
  --variant qblock_static --tile-size 128 --block-m 128 --team-size 12 > /dev/null 2>&1
ncu -i /tmp/t12.ncu-rep --page source --csv --print-source sass > /tmp/t12.csv 2>/dev/null
python3 perf/ncu_stalls.py /tmp/t12.csv > $T/t12-stalls.txt 2>&1
gzip -c /tmp/t12.csv > $T/t12-sass.csv.gz
echo "ncu ${SECONDS} s" >> $T/times.txt
tar czf $OUT/callB.tgz -C /tmp b
cat $T/times.txt $T/device.txt; grep -E "prefill|case " $T/teams-bench.txt | cut -c1-170; cat $T/ncu-teams.txt
sed -n 1,12p $T/t12-stalls.txt; grep -A14 "lines by executed" $T/t12-stalls.txt
