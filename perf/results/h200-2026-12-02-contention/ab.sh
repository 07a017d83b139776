#!/bin/bash
# Stop 66: one A/B call of kattn_prefill_probe builds (.device/NAME/kattn_prefill_probe.xz), the
# first the base: ROUNDS rounds (default 3) alternating; each build's Q-block launches of one probe
# run under Nsight Compute (registers, instructions, time); SOURCE's source counters on b16 512 at
# teams of 4; memcheck of the last build.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in "$@"; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in $(seq 1 ${ROUNDS:-3}); do
  for n in "$@"; do /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum
for n in "$@"; do
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-$n.csv.gz
done
if [ -n "${SOURCE:-}" ]; then
  ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/t4 -f /tmp/$SOURCE 1 0 > /dev/null 2>&1
  ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/t4-$SOURCE-stalls.txt 2>&1
  gzip -c /tmp/t4.csv > $OUT/t4-$SOURCE-sass.csv.gz
fi
last=${@: -1}
compute-sanitizer --tool memcheck --print-limit 20 /tmp/$last 2 0 > $OUT/memcheck-$last.txt 2>&1
tail -2 $OUT/memcheck-$last.txt
