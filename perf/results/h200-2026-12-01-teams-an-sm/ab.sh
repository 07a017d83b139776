#!/bin/bash
# Session 59: A/B of kattn_prefill_probe builds alternating (names as arguments, the first the base), ROUNDS rounds
# (default 3); Nsight Compute counts of each on b16 512 at teams of 4; source counters of SOURCE (a name) if set.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in "$@"; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in $(seq 1 ${ROUNDS:-3}); do
  for n in "$@"; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
M=launch__registers_per_thread,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
for n in "$@"; do
  echo "== $n b16 512, teams of 4 (launch skip 10)"
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 --metrics $M /tmp/$n 1 0 2>&1 | grep -v '^==PROF==' | grep -A16 QBlockMma | head -18
done > $OUT/ncu.txt 2>&1
if [ -n "${SOURCE:-}" ]; then
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/t4 -f /tmp/$SOURCE 1 0 > /dev/null 2>&1
  ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/t4-$SOURCE-stalls.txt 2>&1
  gzip -c /tmp/t4.csv > $OUT/t4-$SOURCE-sass.csv.gz
fi
for n in "$@"; do echo "== $n"; cuobjdump -res-usage /tmp/$n 2>&1 | grep -A1 QBlockMma | grep -o 'REG:[0-9]* STACK:[0-9]* SHARED:[0-9]* LOCAL:[0-9]*' | sort | uniq -c; done > $OUT/regs.txt 2>&1
