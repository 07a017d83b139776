#!/bin/bash
# Session 59, call 2: base59 (HEAD's probe), xr (the exit's wait for the output's read only), dq (xr + items claimed
# from a counter); each planned, and base59 and dq on static grids of 264 and 528 teams; three rounds; Nsight Compute
# counts on b16 512 at teams of 4 (planned, and dq on 264).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in base59 xr dq; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in 1 2 3; do
  for n in base59 xr dq; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
  for g in 264 528; do
    for n in base59 dq; do KATTN_PROBE_GRID_TEAMS=$g KATTN_PROBE_VARIANT=qblock_static /tmp/$n 40 10 | sed "s/^/$n-g$g r$round /"; done
  done
done > $OUT/ab.txt 2>&1
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
for n in base59 xr dq; do
  echo "== $n b16 512, teams of 4 (launch skip 10)"
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 --metrics $M /tmp/$n 1 0 2>&1 | grep -v '^==PROF==' | grep -A16 QBlockMma | head -18
done > $OUT/ncu.txt 2>&1
echo "== dq on 264 teams" >> $OUT/ncu.txt
KATTN_PROBE_GRID_TEAMS=264 KATTN_PROBE_VARIANT=qblock_static ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 --metrics $M /tmp/dq 1 0 2>&1 | grep -v '^==PROF==' | grep -A16 QBlockMma | head -18 >> $OUT/ncu.txt
