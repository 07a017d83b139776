#!/bin/bash
# Source counters of b16 512 at teams of 4 (the planned launch, launch 10 of the probe's one-run pass) on the
# shipped kernels (c628570's probe), grouped by perf/ncu_stalls.py.
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
xz -dc .device/cur/kattn_prefill_probe.xz > /tmp/cur && chmod +x /tmp/cur
ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
  --section SourceCounters --section WarpStateStats -o /tmp/t4 -f /tmp/cur 1 0 > $OUT/ncu-log.txt 2>&1
ncu -i /tmp/t4.ncu-rep --page source --csv --print-source sass > /tmp/t4.csv 2>/dev/null
python3 perf/ncu_stalls.py /tmp/t4.csv > $OUT/t4-stalls.txt 2>&1
gzip -c /tmp/t4.csv > $OUT/t4-sass.csv.gz
head -40 $OUT/t4-stalls.txt
