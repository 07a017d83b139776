#!/bin/bash
# A/B of base (47297c2's probe) against new (this stop's item-path changes), three rounds, planned grids;
# then Nsight Compute's source counters of new's b16 512 teams of 4 (launch 11).
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
for round in 1 2 3; do
  for n in base new; do
    ./$n/kattn_prefill_probe 40 10 | sed "s/^/$n gridplan r$round /"
  done
done 2>&1 | tee $OUT/ab.txt
name=t4new
ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip 10 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats \
  -o $OUT/$name -f ./new/kattn_prefill_probe 1 0 > $OUT/$name-run.txt 2>&1
ncu -i $OUT/$name.ncu-rep --page source --csv --print-source sass > /tmp/$name.csv 2>/dev/null
python3 ../perf/ncu_stalls.py /tmp/$name.csv > $OUT/$name-stalls.txt 2>&1
ncu -i $OUT/$name.ncu-rep --page details > $OUT/$name-details.txt 2>&1
gzip -c /tmp/$name.csv > $OUT/$name-sass.csv.gz
rm -f $OUT/$name.ncu-rep
