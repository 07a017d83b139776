#!/bin/bash
# Calls 2 and 3: `bash .device/ab.sh base lp new` (call 2) and `bash .device/ab.sh base lp v4` (call 3): the probe binaries
# .device/NAME/kattn_prefill_probe alternating, two rounds, planned grids; then launch metrics of each binary's b16 512
# launches 11 and 12 (teams of 4: the planned one and the forced one).
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}
for round in 1 2; do
  for n in "$@"; do
    ./$n/kattn_prefill_probe 40 10 | sed "s/^/$n gridplan r$round /"
  done
done 2>&1 | tee $OUT/ab.txt
for n in "$@"; do
  for skip in 10 11; do
    echo "== $n skip $skip"
    ncu --clock-control none --kernel-name-base demangled -k regex:QBlockMma --launch-skip $skip --launch-count 1 \
      --metrics launch__registers_per_thread,launch__block_size,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_local_ld.sum,smsp__inst_executed_op_local_st.sum \
      ./$n/kattn_prefill_probe 1 0 2>&1 | grep -v "^==PROF==" | grep -A12 "QBlockMma" | grep -v QBlockMma
  done
done 2>&1 | tee $OUT/ncu.txt
