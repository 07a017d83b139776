#!/bin/bash
# Stop 64, call 3: 2ecdee3's probe with its kernels compiled with -lineinfo (.device/lineinfo), the
# source counters of b16 512's Q-block kernel at teams of 4 by CUDA source line: where an item's
# ~1,200 instructions a warp come from (call3.tar.gz: the report's source page as CSV, cuda and
# cuda+sass).
set -u
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
mkdir -p /work && ln -sfn $PWD /work/main
xz -dc .device/lineinfo/kattn_prefill_probe.xz > /tmp/li && chmod +x /tmp/li
mkdir -p /tmp/c3
ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --import-source yes -o /tmp/li -f /tmp/li 1 0 > /tmp/c3/ncu.log 2>&1
tail -3 /tmp/c3/ncu.log
ncu -i /tmp/li.ncu-rep --page source --csv --print-source cuda > /tmp/c3/cuda.csv 2>/tmp/c3/cuda.err
ncu -i /tmp/li.ncu-rep --page source --csv --print-source cuda,sass > /tmp/c3/cuda-sass.csv 2>/tmp/c3/cuda-sass.err
wc -l /tmp/c3/*.csv; head -c 300 /tmp/c3/cuda.err /tmp/c3/cuda-sass.err
gzip /tmp/c3/*.csv
tar czf $OUT/call3.tar.gz -C /tmp/c3 .
