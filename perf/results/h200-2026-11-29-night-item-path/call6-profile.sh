#!/bin/bash
# Nsight Compute source counters of the shipped probe's b16 512 at teams of 4 (launch 11), grouped by perf/ncu_stalls.py.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
xz -dc .device/kattn_prefill_probe.xz > /tmp/probe && chmod +x /tmp/probe
ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats -o /tmp/t4 -f /tmp/probe 1 0 > $OUT/run.txt 2>&1
ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/t4-ship.txt 2>&1
gzip -c /tmp/t4.csv > $OUT/t4-ship-sass.csv.gz
