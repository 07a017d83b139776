#!/bin/bash
# A/B of probe builds: base, prod1 planned, prod1 on a resident grid of 264 teams; ncu and registers.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in base $1; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in 1 2 3; do
  /tmp/base 40 10 | sed "s/^/base r$round /"
  /tmp/$1 40 10 | sed "s/^/$1 r$round /"
  KATTN_PROBE_GRID_TEAMS=264 /tmp/$1 40 10 | sed "s/^/${1}g264 r$round /"
done > $OUT/ab.txt 2>&1
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
for n in base $1; do
  echo "== $n b16 512, teams of 4 (launch skip 10)"
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 --metrics $M /tmp/$n 1 0 2>&1 | grep -v '^==PROF==' | grep -A18 QBlockMma | head -20
done > $OUT/ncu.txt 2>&1
for n in base $1; do echo "== $n"; cuobjdump -res-usage /tmp/$n 2>&1 | grep -A1 QBlockMma | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | sort | uniq -c; done > $OUT/regs.txt 2>&1
