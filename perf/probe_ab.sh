#!/bin/bash
# A/B of kattn_prefill_probe builds on the device (perf/probes/prefill_probe.cpp; docs/performance.md,
# "The prefill probe"). Each build NAME is built here (the h100 preset) and carried as
# .device/NAME/kattn_prefill_probe.xz, with .device/lib holding the runtime libraries it links
# (libcudart.so.13, libstdc++.so.6, libgcc_s.so.1): run `bash perf/probe_ab.sh NAME...` with
# carry [".device"]. Results under $OUT:
#   ab.txt             ROUNDS rounds (default 3) of every build alternating, 40 runs after 10 a case
#                      (a line a case and team size: mean, median, min µs from device events, L2
#                      flushed, and the output checksums)
#   ncu-launches-NAME.csv.gz  each build's Q-block launches of one probe run under Nsight Compute
#                      (registers, grid, block, time, warp instructions, issue, local loads)
#   source-NAME-*      with SOURCE=NAME: that build's source counters on the Q-block launch
#                      SOURCE_SKIP + 1 (default 11: b16 512 at teams of 4; 15: at teams of 12), as
#                      perf/ncu_stalls.py reads them, and the SASS page
#   memcheck-NAME.txt  with MEMCHECK=NAME: one run of that build under compute-sanitizer memcheck
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for n in "$@"; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n && chmod +x /tmp/$n; done
for round in $(seq 1 ${ROUNDS:-3}); do
  for n in "$@"; do timeout 120 /tmp/$n 40 10 | sed "s/^/$n r$round /"; done
done > $OUT/ab.txt 2>&1
date -u +"A/B done %T" >> $OUT/device.txt
M=launch__registers_per_thread,launch__grid_size,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__sass_inst_executed_op_local_ld.sum
for n in "$@"; do
  timeout 90 ncu --clock-control none --kernel-name-base demangled -k regex:QBlock --metrics $M --csv /tmp/$n 1 0 2>/dev/null \
    | grep -v '^==PROF==' | gzip > $OUT/ncu-launches-$n.csv.gz
done
date -u +"ncu done %T" >> $OUT/device.txt
if [ -n "${SOURCE:-}" ]; then
  timeout 150 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip ${SOURCE_SKIP:-10} --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/source -f /tmp/$SOURCE 1 0 > /dev/null 2>&1
  ncu -i /tmp/source.ncu-rep --page source --csv --print-source sass > /tmp/source.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/source.csv > $OUT/source-$SOURCE-stalls.txt 2>&1
  gzip -c /tmp/source.csv > $OUT/source-$SOURCE-sass.csv.gz
fi
if [ -n "${MEMCHECK:-}" ]; then
  timeout 150 compute-sanitizer --tool memcheck --print-limit 20 /tmp/$MEMCHECK 1 0 > $OUT/memcheck-$MEMCHECK.txt 2>&1
  tail -n 2 $OUT/memcheck-$MEMCHECK.txt
fi
