#!/bin/bash
# Call 2 (2026-12-07 21:58 UTC, H100), carry [".device"] with .device/{base,w3}/kattn_prefill_probe.xz
# and .device/lib: Nsight Compute's source counters on b16 512's teams of 4 (the 11th Q-block launch)
# of base and w3, then two rounds of the probe (its b16 512 lines kept in ab-b16-512.txt).
export LD_LIBRARY_PATH=$PWD/.device/lib
for n in base w3; do xz -dc .device/$n/kattn_prefill_probe.xz > /tmp/$n; chmod +x /tmp/$n; done
for n in base w3; do
  timeout 200 ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/s-$n -f /tmp/$n 1 0 > /dev/null 2>&1
  ncu -i /tmp/s-$n.ncu-rep --page source --csv --print-source sass > /tmp/s-$n.csv 2>/dev/null
  python3 perf/ncu_stalls.py /tmp/s-$n.csv > $OUT/source-$n-stalls.txt 2>&1
  gzip -c /tmp/s-$n.csv > $OUT/source-$n-sass.csv.gz
done
for r in 1 2; do for n in base w3; do /tmp/$n 40 10 | grep -E 'prefill-b16-512' | sed "s/^/$n r$r /"; done; done
